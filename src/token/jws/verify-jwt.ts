import type { KeyObject } from 'node:crypto';
import type { ClaimsCheck } from './claim-checks';
import { freezeClaims } from './freeze-claims';
import { JwtCheckFailure } from './jwt-check-failure';
import { decodeJson, readCompact, type CompactToken, type JwsHeader } from './read-compact';
import { signatureCheck } from './signature-check';

/** The key for a token's header: at hand (a configured key, a fetched set), or once a set is fetched. */
export type KeyLookup = (header: JwsHeader) => KeyObject | Promise<KeyObject>;

export interface VerifiedJwt {
  /** Frozen to its leaves. */
  payload: Readonly<Record<string, unknown>>;
  header: JwsHeader;
  /** What verified it, for the token cache to ask later whether that key still serves. */
  key: KeyObject;
}

/**
 * Verifies a compact JWT with node:crypto, synchronously whenever the key is at hand: the header
 * is read once, the key's check was made when the key was imported, and the payload is decoded
 * only once the signature holds, then frozen. It answers as jose's jwtVerify does (the same tokens accepted,
 * the same payloads, the same error codes; test/token/verify-differential.test.ts holds it to
 * that; the one difference: claims nested deeper than MAX_CLAIM_DEPTH are refused), without jose's promises and WebCrypto-shaped steps, which cost a cold HS256 request four
 * times its HMAC.
 */
export function verifyJwt(token: string, algorithms: ReadonlySet<string>, lookup: KeyLookup, checkClaims: ClaimsCheck): VerifiedJwt | Promise<VerifiedJwt> {
  const compact = readCompact(token, algorithms);
  const key = lookup(compact.header);
  return key instanceof Promise ? key.then((found) => checkToken(compact, found, checkClaims)) : checkToken(compact, key, checkClaims);
}

function checkToken(compact: CompactToken, key: KeyObject, checkClaims: ClaimsCheck): VerifiedJwt {
  const check = signatureCheck(key, compact.alg);
  if (!check(compact.signingInput, Buffer.from(compact.signaturePart, 'base64url'))) throw new JwtCheckFailure('ERR_JWS_SIGNATURE_VERIFICATION_FAILED', 'signature verification failed');
  if (compact.unencodedPayload) throw new JwtCheckFailure('ERR_JWT_INVALID', 'JWTs MUST NOT use unencoded payload');
  let payload: unknown;
  try {
    payload = decodeJson(compact.payloadPart);
  } catch {
    // Not JSON: refused by the claims check as "not a JSON object", as jose does.
  }
  return { payload: freezeClaims(checkClaims(compact.header, payload)), header: compact.header, key };
}
