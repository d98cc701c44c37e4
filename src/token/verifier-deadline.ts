import type { VerifiedPayload } from '../policy/request/build-input';
import { settleWithin } from '../policy/evaluate/answer-within';
import { JsonWebTokenError } from './errors';

/** How long the adapters wait for a verifier other than bearerJwt's, per request. */
export const VERIFIER_TIMEOUT_MS = 5000;

/**
 * Another verifier's answer, or a JsonWebTokenError (`ERR_SVCGATE_VERIFY_TIMEOUT`, a 401) once
 * VERIFIER_TIMEOUT_MS have passed without one (SPEC 7.5). bearerJwt's own waits (key sets,
 * discovery) have their own limits (timeoutDuration).
 */
export function withinVerifierDeadline(answer: unknown): Promise<VerifiedPayload> {
  return settleWithin(answer, VERIFIER_TIMEOUT_MS, () => {
    throw new JsonWebTokenError('ERR_SVCGATE_VERIFY_TIMEOUT', `the verifier did not answer within ${VERIFIER_TIMEOUT_MS} ms`);
  }) as Promise<VerifiedPayload>;
}
