const MINUTE = 60;
const HOUR = MINUTE * 60;
const DAY = HOUR * 24;

/** Seconds per unit, by the unit's first letter(s) as jose's duration grammar spells them. */
const UNIT_SECONDS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^s/, 1],
  [/^m/, MINUTE],
  [/^h/, HOUR],
  [/^d/, DAY],
  [/^w/, DAY * 7],
  [/^y/, DAY * 365.25],
];

const DURATION = /^([+-])? ?(\d+|\d+\.\d+) ?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)(?: (ago|from now))?$/i;

/**
 * A duration as jose reads `clockTolerance` and `maxTokenAge` strings ('5s', '1 hour', '2 days ago'),
 * in whole seconds; undefined when the text is not one. Read once from the configuration, so a
 * misspelt duration is a start-up error rather than every token's 401.
 */
export function durationSeconds(text: string): number | undefined {
  const matched = DURATION.exec(text);
  if (matched === null || (matched[4] !== undefined && matched[1] !== undefined)) return undefined;
  const unit = matched[3]!.toLowerCase();
  const perUnit = UNIT_SECONDS.find(([pattern]) => pattern.test(unit))![1];
  const seconds = Math.round(Number.parseFloat(matched[2]!) * perUnit);
  // As jose: only a lower-case 'ago' negates, though the grammar accepts 'AGO'.
  return matched[1] === '-' || matched[4] === 'ago' ? -seconds : seconds;
}
