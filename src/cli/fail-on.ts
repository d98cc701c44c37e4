import type { DecisionChange } from '../policy/evaluate/decision-change';
import { UsageError } from './usage-error';

/** What `--fail-on` takes, in diff and replay alike. */
export const FAIL_ON = ['widen', 'narrow', 'change'] as const;
export type FailOn = (typeof FAIL_ON)[number];

/** A change of both kinds (`changed`) widens and narrows, so either gate fails on it. */
const FAILING: Record<FailOn, readonly DecisionChange[]> = { widen: ['widened', 'changed'], narrow: ['narrowed', 'changed'], change: ['widened', 'narrowed', 'changed'] };

/** The option's value, checked; undefined when it is not given. */
export function readFailOn(value: string | undefined): FailOn | undefined {
  if (value === undefined) return undefined;
  if (!(FAIL_ON as readonly string[]).includes(value)) throw new UsageError(`--fail-on must be one of ${FAIL_ON.join(', ')}`);
  return value as FailOn;
}

/** Exit code 1 when some change found is of a kind `--fail-on` names, else 0. */
export function failOnExitCode(failOn: FailOn | undefined, found: Iterable<DecisionChange>): number {
  if (failOn === undefined) return 0;
  for (const change of found) if (FAILING[failOn].includes(change)) return 1;
  return 0;
}
