import type { VerifiedPayload } from '../policy/request/build-input';
import { readCredentials } from './authorization-header';
import { attachChallenges, bareChallenges, failureChallenges, type SchemeOffer } from './challenge';
import type { DpopSettings } from './dpop-options';
import { checkBearerUse, dpopProofCheck } from './dpop-proof';
import { pendingVerification } from './pending-verification';
import type { VerificationRequest } from './verification-request';

/** Verifies one token's signature and claims (or finds it verified before); knows nothing of schemes. */
export type VerifyToken = (token: string) => Promise<VerifiedPayload>;

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

/**
 * The schemes around the token check: `Bearer <token>`, refused for a token bound to a DPoP key,
 * and, when DPoP is enabled, `DPoP <token>` with its proof. Every error carries the challenges
 * of its 401 (see challenge.ts).
 */
export function schemeHandler(verifyToken: VerifyToken, maxHeaderBytes: number, dpop: DpopSettings | undefined): SchemeHandler {
  const checkProof = dpop === undefined ? undefined : dpopProofCheck(dpop, maxHeaderBytes);
  const offer: SchemeOffer = { bearer: dpop?.required !== true, dpopAlgorithms: dpop?.algorithms };

  const verifyCredentials = async (authorization: unknown, request: VerificationRequest | undefined): Promise<VerifiedPayload> => {
    let used: 'Bearer' | 'DPoP' = 'Bearer';
    try {
      const credentials = readCredentials(authorization, maxHeaderBytes, offer);
      used = credentials.scheme;
      const payload = await verifyToken(credentials.token);
      if (credentials.scheme === 'Bearer') checkBearerUse(payload);
      else await checkProof!(credentials.token, payload, request);
      return payload;
    } catch (error) {
      throw attachChallenges(error, failureChallenges(offer, used, error));
    }
  };

  // Completed by BearerJWT with the request; a request without an Authorization header did not use the scheme.
  const complete = async (request: VerificationRequest): Promise<VerifiedPayload | undefined> =>
    request.headers.authorization === undefined ? undefined : verifyCredentials(request.headers.authorization, request);

  const challenges = bareChallenges(offer);
  const pending = async (): Promise<VerifiedPayload> => {
    try {
      return pendingVerification(complete, challenges);
    } catch (error) {
      throw attachChallenges(error, failureChallenges(offer, 'Bearer', error));
    }
  };

  // Not async itself: the common path costs no promise beyond verifyCredentials'.
  const handler = (authorization: unknown, request?: VerificationRequest): Promise<VerifiedPayload> => {
    // An oauth2 scheme's call has the scopes in place of the request, so that alone decides.
    const needsRequest = isOauthSchemeDefinition(authorization) || (request === undefined && checkProof !== undefined && typeof authorization === 'string' && /^dpop /i.test(authorization));
    return needsRequest ? pending() : verifyCredentials(authorization, request);
  };
  return Object.assign(handler as SchemeHandler, { challenges });
}

/** @oas-tools/core calls an oauth2 or openIdConnect scheme's handler with the scheme's definition and the required scopes. */
function isOauthSchemeDefinition(value: unknown): boolean {
  const type = (value as { type?: unknown } | null)?.type;
  return typeof value === 'object' && (type === 'oauth2' || type === 'openIdConnect');
}
