import { isPlainObject } from '../../policy/compile/documents/plain-object';
import { decisionChange } from '../../policy/evaluate/decision-change';
import type { Decision, PolicyInput } from '../../policy/evaluate/evaluator';
import { withListPlan } from '../../guard/list-operations';
import { classifyEvent, type NotReplayableReason, type ReplayableEvent } from './classify-event';
import type { LogSources } from './decision-log-files';
import { logEntries } from './read-decision-logs';
import type { Candidate } from './replay-candidate';
import { recordedDecision } from './recorded-decision';
import { cutName, ReplayTally, shownDecision, type ReplayExample, type ReplayReport } from './replay-report';

/**
 * Reads every event of the logs, one at a time, decides each replayable one again with the
 * candidate as the guard would (the same input, and withListPlan's rule for list operations), and
 * counts how each decision changes (decisionChange: widened, narrowed, changed, or the same).
 */
export async function replayDecisions(logs: LogSources, candidate: Candidate): Promise<ReplayReport> {
  const tally = new ReplayTally(candidate, logs.sources.length, logs.leftOut);
  for (const source of logs.sources) {
    for await (const entry of logEntries(source)) {
      if ('problem' in entry) {
        tally.unreadable(entry.at, entry.problem);
        continue;
      }
      const classified = classifyEvent(entry.event);
      if (classified.kind !== 'replayable') {
        tally.notDecided(classified.kind);
        continue;
      }
      const replayed = decideAgain(classified, candidate);
      if (typeof replayed === 'string') {
        tally.notDecided(replayed, replayed === 'unknown_operation' ? classified.input.operation : undefined);
        continue;
      }
      const { event } = entry;
      const operation = classified.input.operation;
      const role = cutName(roleOf(classified.input));
      tally.replayed({
        operation,
        role,
        change: decisionChange(replayed.was, replayed.is),
        example: (): ReplayExample => ({
          decisionId: textOrNull(event.decision_id),
          timestamp: textOrNull(event.timestamp),
          at: entry.at,
          operation,
          role,
          before: shownDecision(replayed.was),
          after: shownDecision(replayed.is),
        }),
      });
    }
  }
  return tally.result();
}

/** The recorded decision and the candidate's, or why the event cannot be decided again. */
function decideAgain({ input, result }: ReplayableEvent, candidate: Candidate): { was: Decision; is: Decision } | NotReplayableReason {
  const { operations } = candidate.data;
  if (!Object.hasOwn(operations, input.operation)) return 'unknown_operation';
  const operation = operations[input.operation]!;
  const was = recordedDecision(result, operation.list, input.claims);
  if (was === undefined) return 'malformed_result';
  const is = withListPlan(operation, candidate.evaluator.evaluate(input));
  if (ownershipUnchecked(input, is)) return 'ownership_unchecked';
  // An input holds only the token's scopes that the operation named when it was decided. Allowed
  // then, those met its scopes; a candidate that asks for scopes now names others, which the
  // token may have held: not known, so not counted as narrowed.
  if (was.allow && !is.allow && is.scopes.length > 0) return 'scopes_unrecorded';
  return { was, is };
}

/**
 * With checkOwnership, the guard runs the checks only when the policy grants `own` and not `any`,
 * and logs `checks: {}` when it did not run them. A candidate that now grants only `own` would
 * have them run: their results were never recorded, so the decision is not guessed.
 */
function ownershipUnchecked(input: PolicyInput, decision: Decision): boolean {
  const { checks } = input;
  return isPlainObject(checks) && Object.keys(checks).length === 0 && !decision.allow && decision.possession === 'own' && decision.scopes.length === 0;
}

/** The input's role claim as the report counts it: one role, several sorted and joined with `,`, or `anonymous` without one. */
export function roleOf(input: PolicyInput): string {
  const { role } = input;
  if (role === undefined || role === null) return 'anonymous';
  if (typeof role === 'string') return role;
  if (Array.isArray(role) && role.every((name) => typeof name === 'string')) return role.length === 0 ? 'anonymous' : [...(role as string[])].sort().join(',');
  return '(not a role claim)';
}

/** An example's decision_id or timestamp: text from the logs, cut as names are. */
function textOrNull(value: unknown): string | null {
  return typeof value === 'string' ? cutName(value) : null;
}
