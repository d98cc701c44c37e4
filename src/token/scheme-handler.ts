import type { VerifiedPayload } from '../policy/request/build-input';
import { readCredentials } from './authorization-header';
import { attachChallenges, bareChallenges, failureChallenges, type SchemeOffer } from './challenge';
import type { DpopSettings } from './dpop/dpop-options';
import { checkBearerUse, dpopProofCheck } from './dpop/dpop-proof';
import { thenOrNow } from '../policy/evaluate/then-or-now';
import { pendingVerification } from './pending-verification';
import type { VerificationRequest } from './verification-request';
import { withinVerifierDeadline } from './verifier-deadline';

/** A payload at hand (a token verified before), or one still being verified. */
export type Verification = VerifiedPayload | Promise<VerifiedPayload>;

/** Verifies one token's signature and claims, or finds it verified before; knows nothing of schemes. */
export type VerifyToken = (token: string) => Verification;

export interface SchemeHandler {
  /**
   * With the request (the Express adapters pass it): the verified payload, DPoP proof checked.
   * As @oas-tools/core calls it, without the request (the Authorization header only, or an oauth2
   * or openIdConnect scheme definition and its scopes), it may resolve to a PendingVerification
   * instead, which holds no claims and which BearerJWT completes: a DPoP proof to check, or a
   * token still to read.
   */
  (authorization: unknown, request?: VerificationRequest): Promise<VerifiedPayload>;
  /** The WWW-Authenticate values of a 401 to a request that sent no credentials. */
  readonly challenges: readonly string[];
}

/** Each handler's check for the adapters, which always have the request; kept out of the public type. */
const immediateChecks = new WeakMap<SchemeHandler, (authorization: unknown, requestOf: () => VerificationRequest) => Verification>();

/**
 * How the adapters call a handler: bearerJwt's answers at once, without a promise, for a Bearer
 * token it has verified before or whose key is at hand, so that the common request is guarded within the turn of the
 * event loop that read it (the first deferral to a promise cost about 4% of Express's requests
 * per second in the benchmark). Errors are thrown or rejected with their challenges attached.
 * Another verifier is called as documented, with the request, and waited for at most
 * VERIFIER_TIMEOUT_MS.
 */
export function verifyForRequest(handler: SchemeHandler, authorization: unknown, requestOf: () => VerificationRequest): Verification {
  const immediate = immediateChecks.get(handler);
  return immediate === undefined ? withinVerifierDeadline(handler(authorization, requestOf())) : immediate(authorization, requestOf);
}

/**
 * The schemes around the token check: `Bearer <token>`, refused for a token bound to a DPoP key,
 * and, when DPoP is enabled, `DPoP <token>` with its proof. Every error carries the challenges
 * of its 401 (see challenge.ts).
 */
export function schemeHandler(verifyToken: VerifyToken, maxHeaderBytes: number, dpop: DpopSettings | undefined): SchemeHandler {
  const checkProof = dpop === undefined ? undefined : dpopProofCheck(dpop, maxHeaderBytes);
  const offer: SchemeOffer = { bearer: dpop?.required !== true, dpopAlgorithms: dpop?.algorithms };

  const verifyCredentials = (authorization: unknown, requestOf: () => VerificationRequest | undefined): Verification => {
    let used: 'Bearer' | 'DPoP' = 'Bearer';
    const failed = (error: unknown): never => {
      throw attachChallenges(error, failureChallenges(offer, used, error));
    };
    try {
      const credentials = readCredentials(authorization, maxHeaderBytes, offer);
      used = credentials.scheme;
      const bound = (payload: VerifiedPayload): Verification => {
        if (credentials.scheme === 'Bearer') {
          checkBearerUse(payload);
          return payload;
        }
        return checkProof!(credentials.token, payload, requestOf()).then(() => payload);
      };
      const result = thenOrNow(verifyToken(credentials.token), bound);
      return result instanceof Promise ? result.catch(failed) : result;
    } catch (error) {
      return failed(error);
    }
  };

  // Completed by BearerJWT with the request; a request without an Authorization header did not use the scheme.
  const complete = async (request: VerificationRequest): Promise<VerifiedPayload | undefined> =>
    request.headers.authorization === undefined ? undefined : verifyCredentials(request.headers.authorization, () => request);

  const challenges = bareChallenges(offer);
  const pending = async (): Promise<VerifiedPayload> => {
    try {
      return pendingVerification(complete, challenges);
    } catch (error) {
      throw attachChallenges(error, failureChallenges(offer, 'Bearer', error));
    }
  };

  // Not async itself: the common path costs no promise beyond the one it returns.
  const handler = (authorization: unknown, request?: VerificationRequest): Promise<VerifiedPayload> => {
    // An oauth2 scheme's call has the scopes in place of the request, so that alone decides.
    const needsRequest = isOauthSchemeDefinition(authorization) || (request === undefined && checkProof !== undefined && typeof authorization === 'string' && /^dpop /i.test(authorization));
    if (needsRequest) return pending();
    try {
      return Promise.resolve(verifyCredentials(authorization, () => request));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const verifier = Object.assign(handler as SchemeHandler, { challenges });
  immediateChecks.set(verifier, verifyCredentials);
  return verifier;
}

/** @oas-tools/core calls an oauth2 or openIdConnect scheme's handler with the scheme's definition and the required scopes. */
function isOauthSchemeDefinition(value: unknown): boolean {
  const type = (value as { type?: unknown } | null)?.type;
  return typeof value === 'object' && (type === 'oauth2' || type === 'openIdConnect');
}
