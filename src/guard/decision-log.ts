import { randomUUID } from 'node:crypto';
import type { DecisionResult } from '../policy/evaluate/decide';
import type { DecisionSource } from '../policy/evaluate/decision-source';
import { denied, type Decision, type PolicyInput } from '../policy/evaluate/evaluator';
import { svcgateVersion } from '../policy/evaluate/svcgate-version';
import { INSTANCE_ID } from '../policy/evaluate/instance-id';
import type { DecisionChange } from '../policy/evaluate/decision-change';

/** The path OPA's decision logs give the decision: the policy's entrypoint. */
export const DECISION_PATH = 'svcgate/authz/decision';
/** The entrypoint a list operation (`x-acl-list`) is decided by: the decision with the plan of its items. */
export const PLAN_PATH = 'svcgate/authz/plan';

/**
 * One decision, in OPA's decision-log format (the fields OPA's own events have, so any collector
 * of OPA's logs takes them), with svcgate's `operation`, revisions and `status`. It never holds
 * the token; claims and parameter values in `input` can be personal data (mask them with the
 * uploader's `mask`).
 */
export interface DecisionLogEvent {
  decision_id: string;
  /**
   * The policy's entrypoint that decided: `svcgate/authz/plan` for a list operation (`x-acl-list`),
   * whose `result.list` then holds the plan of its items, `svcgate/authz/decision` for any other.
   */
  path: string;
  /** The policy input the decision was made on: owned parameter values and the claims compared with them. */
  input: PolicyInput;
  /**
   * The decision, as the policy returned it; on a list operation with `list`, the plan, whose
   * `anyOf` holds the caller's claim values (mask `/result/list/anyOf` with `/input/claims`).
   */
  result: Decision;
  /** RFC 3339. */
  timestamp: string;
  metrics: { timer_svcgate_decision_ns: number };
  /** Bundle name -> revision, when the decisions come from bundles. */
  bundles?: Record<string, { revision: string }>;
  /** `id`: this process (a UUID per process, as OPA's instance id); `version`: svcgate's version. */
  labels: Record<string, string>;
  /** `<METHOD> <path>` of the operation. */
  operation: string;
  /** A hash of policy.wasm (or where the remote OPA is) and the data document's revision. */
  policy_revision: string;
  data_revision: string;
  /** 401: the credentials were refused before any decision (no claims were read); `result.reasons` says why. */
  status?: 401;
  /**
   * The schemes of the security alternative that let the request in without the bearer scheme
   * (bearerJwtAcl's `otherSchemes`): the policy was not asked, `result` allows with no attributes.
   */
  other_schemes?: readonly string[];
  /**
   * Only on a shadow divergence (the adapter's `shadow` option): this event repeats a decision
   * already logged, with `result` the active decision that answered the request and here the
   * candidate's, which differs from it. Tools that count decisions skip these events.
   */
  shadow?: ShadowResult;
}

/** The shadow candidate's decision of the same input, its revisions, and how it differs (in `svcgate diff`'s words). */
export interface ShadowResult {
  result: Decision;
  policy_revision: string;
  data_revision: string;
  change: DecisionChange;
}

export type DecisionLog = (event: DecisionLogEvent) => void;

/** A throwing logger must not change the answer, so its errors are reported and dropped. */
export function logDecision(log: DecisionLog | undefined, source: DecisionSource, result: DecisionResult, startedAt: number, listOperation = false): void {
  if (!log) return;
  send(log, event(source, result.input, result.decision, Math.round((performance.now() - startedAt) * 1e6), listOperation ? PLAN_PATH : DECISION_PATH));
}

/**
 * A request refused with 401 (a token or DPoP proof that does not verify) is a deny too, logged
 * with the same fields: the refusal's description as the reason and `status: 401`. Nothing of the
 * token is in it.
 */
export function logAuthenticationFailure(log: DecisionLog | undefined, source: DecisionSource, operation: string, reason: string): void {
  if (!log) return;
  send(log, { ...event(source, { operation }, denied(reason), 0), status: 401 });
}

/**
 * A sampled request whose shadow candidate decided otherwise than the active policy: an event of
 * its own (a new decision_id) with the active result and `shadow`. Returns its decision_id.
 */
export function logShadowDivergence(log: DecisionLog, active: DecisionSource, input: PolicyInput, decision: Decision, path: string, shadow: ShadowResult): string {
  // Built in place: a divergence can come with every sampled request.
  const divergence: DecisionLogEvent = event(active, input, decision, 0, path);
  divergence.shadow = shadow;
  send(log, divergence);
  return divergence.decision_id;
}

/** A request another scheme let in (see admitByOtherScheme): logged, so that every request the guard let on is in the log. */
export function logOtherScheme(log: DecisionLog | undefined, source: DecisionSource, operation: string, decision: Decision, schemes: readonly string[]): void {
  if (!log) return;
  // A list operation's event is the plan entrypoint's, with the plan the handler got, as when the policy decides it.
  send(log, { ...event(source, { operation }, decision, 0, decision.list === undefined ? DECISION_PATH : PLAN_PATH), other_schemes: schemes });
}

/** `path`: the entrypoint that decided, PLAN_PATH for a list operation's decision. */
function event(source: DecisionSource, input: PolicyInput, decision: Decision, nanoseconds: number, path = DECISION_PATH): DecisionLogEvent {
  const bundles = source.bundles;
  return {
    decision_id: randomUUID(),
    path,
    input,
    result: decision,
    timestamp: new Date().toISOString(),
    metrics: { timer_svcgate_decision_ns: nanoseconds },
    ...(bundles === undefined ? {} : { bundles: { ...bundles } }),
    labels: { id: INSTANCE_ID, version: svcgateVersion() },
    operation: input.operation,
    policy_revision: source.policyRevision,
    data_revision: source.revision,
  };
}

function send(log: DecisionLog, event: DecisionLogEvent): void {
  try {
    log(event);
  } catch (error) {
    process.emitWarning(`decisionLog threw: ${error instanceof Error ? error.message : String(error)}`, { code: 'SVCGATE_DECISION_LOG' });
  }
}
