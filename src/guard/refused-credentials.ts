import type { DecisionSource } from '../policy/evaluate/decision-source';
import { recordVerificationFailure } from '../telemetry/record-decision';
import { logAuthenticationFailure, type DecisionLog } from './decision-log';

/**
 * A request refused 401 before any decision (credentials that do not verify, or none where the
 * host demands them): a decision-log event, and the verification failure's span, metrics and
 * `svcgate:verification-failure` message, under the refusal's code.
 */
export function reportRefusedCredentials(log: DecisionLog | undefined, source: DecisionSource, operation: string, refusal: { code: string; description: string }): void {
  logAuthenticationFailure(log, source, operation, refusal.description);
  recordVerificationFailure(operation, refusal.code, refusal.description, source);
}
