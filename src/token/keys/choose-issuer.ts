import { decodeJwt } from 'jose';
import { JsonWebTokenError } from '../errors';
import type { ClaimCheckOptions, ClaimsCheck } from '../jws/claim-checks';
import type { KeySource } from './key-set';

/** What verifies the tokens of one accepted issuer (or list of issuers): its keys and its checks. */
export interface IssuerVerifier {
  keys: KeySource;
  /** `issuer` is always set, so the claims check tests again the iss this entry was chosen by. */
  options: ClaimCheckOptions & { issuer: string | string[] };
  /** The checks of `options`, prepared once. */
  checkClaims: ClaimsCheck;
}

/**
 * Picks the one entry whose issuer the token claims. The iss is read from the unverified payload
 * only to choose; the chosen entry alone then verifies the token, with its own keys and its own
 * issuer check, so a token signed by one tenant's key but naming another's iss fails there.
 * With a single entry nothing is decoded: the claims check of iss is the whole answer.
 */
export function issuerChooser(verifiers: readonly IssuerVerifier[]): (token: string) => IssuerVerifier {
  const [only] = verifiers;
  if (verifiers.length === 1 && only !== undefined) return () => only;
  // A Map, not an object: an iss of "__proto__" or "constructor" must find nothing.
  const byIssuer = new Map<string, IssuerVerifier>();
  for (const verifier of verifiers) for (const issuer of [verifier.options.issuer].flat()) byIssuer.set(issuer, verifier);

  return (token) => {
    const iss = unverifiedIssuer(token);
    const verifier = iss === undefined ? undefined : byIssuer.get(iss);
    if (verifier === undefined) {
      throw new JsonWebTokenError('ERR_JWT_CLAIM_VALIDATION_FAILED', iss === undefined ? 'the token has no iss claim' : 'the token names an issuer that is not configured', "the token's issuer is not accepted");
    }
    return verifier;
  };
}

/** The header's length is bounded by maxHeaderBytes before this runs, so decoding costs little. */
function unverifiedIssuer(token: string): string | undefined {
  let payload: { iss?: unknown };
  try {
    payload = decodeJwt(token);
  } catch (error) {
    throw new JsonWebTokenError('ERR_JWT_INVALID', error instanceof Error ? error.message : String(error), 'the token is not a well-formed JWT');
  }
  return typeof payload.iss === 'string' ? payload.iss : undefined;
}
