/**
 * ` (did you mean <closest>?)` for a configuration error, or '' when there is nothing to suggest.
 * Only for names from the configuration: the distance is quadratic in the names' lengths, which is
 * nothing for identifiers but must never see client input.
 */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const closest = closestName(name, candidates);
  return closest === undefined ? '' : ` (did you mean ${closest}?)`;
}

/**
 * The candidate with the fewest single-character edits from `name`; the first one on a tie.
 * With `within`, none that needs more edits than that (a suggestion nothing like the name misleads).
 */
export function closestName(name: string, candidates: Iterable<string>, within = Infinity): string | undefined {
  let closest: string | undefined;
  let fewest = within + 1;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (distance < fewest) [closest, fewest] = [candidate, distance];
  }
  return closest;
}

/** Levenshtein distance: insertions, deletions and substitutions, one row of the table at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
