import { randomUUID } from 'node:crypto';
import type { DecisionResult } from '../policy/evaluate/decide';
import type { DecisionSource } from '../policy/evaluate/decision-source';
import type { PolicyInput } from '../policy/evaluate/evaluator';

/** One decision, as sent to `decisionLog`. It never holds the token. */
export interface DecisionLogEvent {
  decision_id: string;
  timestamp: string;
  /** `<METHOD> <path>` of the operation. */
  operation: string;
  /** The policy input the decision was made on: the parameter values read from the request, the claims compared with them. */
  input: PolicyInput;
  /** The caller's roles as the token gave them; `["anonymous"]` without a verified token. */
  roles: unknown;
  result: 'allow' | 'deny';
  reasons: string[];
  role: string | null;
  possession: string | null;
  policy_revision: string;
  data_revision: string;
  evaluation_ms: number;
  /** 401: the credentials were refused before any decision (no claims were read); `reasons` says why. */
  status?: 401;
}

export type DecisionLog = (event: DecisionLogEvent) => void;

/** A throwing logger must not change the answer, so its errors are reported and dropped. */
export function logDecision(log: DecisionLog | undefined, evaluator: DecisionSource, result: DecisionResult, startedAt: number): void {
  if (!log) return;
  const { decision, input } = result;
  const event: DecisionLogEvent = {
    decision_id: randomUUID(),
    timestamp: new Date().toISOString(),
    operation: input.operation,
    input,
    roles: 'role' in input ? input.role : ['anonymous'],
    result: decision.allow ? 'allow' : 'deny',
    reasons: decision.reasons,
    role: decision.role,
    possession: decision.possession,
    policy_revision: evaluator.policyRevision,
    data_revision: evaluator.revision,
    evaluation_ms: performance.now() - startedAt,
  };
  send(log, event);
}

/**
 * A request refused with 401 (a token or DPoP proof that does not verify) is a deny too, logged
 * with the same fields: no roles (the caller is not known), the refusal's description as the
 * reason, and `status: 401`. Nothing of the token is in it.
 */
export function logAuthenticationFailure(log: DecisionLog | undefined, evaluator: DecisionSource, operation: string, reason: string): void {
  if (!log) return;
  send(log, {
    decision_id: randomUUID(),
    timestamp: new Date().toISOString(),
    operation,
    input: { operation },
    roles: null,
    result: 'deny',
    reasons: [reason],
    role: null,
    possession: null,
    policy_revision: evaluator.policyRevision,
    data_revision: evaluator.revision,
    evaluation_ms: 0,
    status: 401,
  });
}

function send(log: DecisionLog, event: DecisionLogEvent): void {
  try {
    log(event);
  } catch (error) {
    process.emitWarning(`decisionLog threw: ${error instanceof Error ? error.message : String(error)}`, { code: 'SVCGATE_DECISION_LOG' });
  }
}
