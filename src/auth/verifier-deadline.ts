import type { VerifiedPayload } from '../policy/request/build-input';
import { JsonWebTokenError } from './errors';

/** How long the adapters wait for a verifier other than bearerJwt's, per request. */
export const VERIFIER_TIMEOUT_MS = 5000;

/**
 * Another verifier's answer (awaited, whatever promise library made it), or a JsonWebTokenError
 * (`ERR_SVCGATE_VERIFY_TIMEOUT`, a 401) once VERIFIER_TIMEOUT_MS have passed without one: a
 * verifier that never settles must not leave the request hanging (SPEC 7.5). A late answer is
 * ignored. bearerJwt's own waits (key sets, discovery) have their own limits (timeoutDuration).
 */
export function withinVerifierDeadline(answer: unknown): Promise<VerifiedPayload> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new JsonWebTokenError('ERR_SVCGATE_VERIFY_TIMEOUT', `the verifier did not answer within ${VERIFIER_TIMEOUT_MS} ms`)), VERIFIER_TIMEOUT_MS);
    // The request it belongs to keeps the server busy; the timer alone must not keep a process alive.
    timer.unref();
    Promise.resolve(answer as VerifiedPayload).then(
      (payload) => {
        clearTimeout(timer);
        resolve(payload);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
