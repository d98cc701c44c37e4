import type { VerifiedPayload } from '../policy/request/build-input';
import { SecurityError } from './errors';
import type { VerificationRequest } from './verification-request';

const COMPLETE = Symbol('svcgate.completeVerification');
const CHALLENGES = Symbol('svcgate.challenges');

/**
 * What the bearerJwt handler gives @oas-tools/core's security step when it cannot finish there:
 * the host calls an `http` scheme's handler with the Authorization header only (no DPoP proof,
 * method or URL), and an `oauth2` or `openIdConnect` scheme's handler with no request at all.
 * BearerJWT completes it with the request and puts the verified payload in its place in
 * `res.locals.oas.security`. It has no string keys, so code that reads it as a payload finds no
 * claim, and no JSON value can imitate it.
 */
export type PendingVerification = Readonly<{
  [COMPLETE]: (request: VerificationRequest) => Promise<VerifiedPayload | undefined>;
  /** The WWW-Authenticate values of a 401 to a request that sent no credentials. */
  [CHALLENGES]: readonly string[];
}>;

let completerStarted = false;

/** Called by BearerJWT.initialize: from now on pending verifications are completed. */
export function startCompletingVerifications(): void {
  completerStarted = true;
}

/**
 * Only when a BearerJWT was initialized in this process, since nothing else completes it: a
 * pending object left in `res.locals.oas.security` would count as a satisfied scheme.
 */
export function pendingVerification(complete: (request: VerificationRequest) => Promise<VerifiedPayload | undefined>, challenges: readonly string[]): PendingVerification {
  if (!completerStarted) throw new SecurityError('this credential is verified by BearerJWT, which the server does not use', 'the server cannot verify this credential');
  return Object.freeze({ [COMPLETE]: complete, [CHALLENGES]: challenges });
}

export function isPendingVerification(value: unknown): value is PendingVerification {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, COMPLETE);
}

/** The verified payload, or undefined when the request sent no credentials. */
export function completeVerification(pending: PendingVerification, request: VerificationRequest): Promise<VerifiedPayload | undefined> {
  return pending[COMPLETE](request);
}

export function pendingChallenges(pending: PendingVerification): readonly string[] {
  return pending[CHALLENGES];
}
