import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, jwtVerify } from 'jose';
import type { VerifiedPayload } from '../../policy/request/build-input';
import type { DpopSettings } from './dpop-options';
import { JsonWebTokenError } from '../errors';
import { ReplayCache } from './replay-cache';
import { normalizedTargetPath, normalizedUri } from './request-uri';
import type { VerificationRequest } from '../verification-request';

/** The code of every refused proof; the adapters answer it with `DPoP error="invalid_dpop_proof"`. */
export const DPOP_PROOF_ERROR = 'ERR_SVCGATE_DPOP_PROOF';

/** Checks the DPoP proof of a request whose token (already verified) came with the DPoP scheme. */
export type DpopProofCheck = (token: string, payload: VerifiedPayload, request: VerificationRequest | undefined) => Promise<void>;

/** JWK members that only a private (or symmetric) key has. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
/** A compact JWS: three base64url parts. Anything else (two proofs joined by a comma, spaces) is not one proof. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** RFC 9449 asks for enough entropy in jti, not for length; longer ids are refused rather than hashed unread. */
const MAX_JTI_LENGTH = 256;

/**
 * RFC 9449, section 4.3, in an order where the costly steps come last: the proof's form, the
 * token's binding and the proof key's thumbprint are checked before its signature, so only a
 * proof signed with the key a valid token is bound to costs a signature check and a place in the
 * replay cache.
 */
export function dpopProofCheck(settings: DpopSettings, maxProofBytes: number): DpopProofCheck {
  const replays = new ReplayCache(settings.jtiCacheSize, (settings.iatOffsetSeconds + settings.iatLeewaySeconds) * 1000);
  let warnedFull = false;

  return async (token, payload, request) => {
    // Without the request (a caller that passed only the header) there is no proof to check.
    if (request === undefined) throw invalidProof('the request has no DPoP proof');
    const proof = oneProof(request.headers.dpop, maxProofBytes);
    const jkt = cnfJkt(payload);
    if (typeof jkt !== 'string' || jkt === '') throw invalidToken('the token is not bound to a DPoP key');
    await checkHeader(proof, settings.algorithms, jkt);
    let claims: Record<string, unknown>;
    try {
      claims = (await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: settings.algorithms })).payload;
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      throw invalidProof(code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' ? "the DPoP proof's signature does not verify" : 'the DPoP proof is not a valid JWT', error);
    }
    if (claims.htm !== request.method) throw invalidProof("the DPoP proof's htm is not the request method");
    if (!sameUri(claims.htu, request.url, settings.origins)) throw invalidProof("the DPoP proof's htu is not the request URL");
    const now = Date.now() / 1000;
    if (typeof claims.iat !== 'number' || claims.iat < now - settings.iatOffsetSeconds || claims.iat > now + settings.iatLeewaySeconds) {
      throw invalidProof("the DPoP proof's iat is too old or in the future");
    }
    if (claims.ath !== sha256(token)) throw invalidProof("the DPoP proof's ath is not the hash of the access token");
    if (typeof claims.jti !== 'string' || claims.jti.length === 0 || claims.jti.length > MAX_JTI_LENGTH) throw invalidProof('the DPoP proof has no valid jti');
    // Per key, so one client's ids never collide with another's; hashed, so every entry has one small size.
    const seen = replays.remember(sha256(`${jkt} ${claims.jti}`));
    if (seen === 'replayed') throw invalidProof('the DPoP proof was used before');
    if (seen === 'full') {
      if (!warnedFull) {
        warnedFull = true;
        process.emitWarning(`the DPoP replay cache holds ${settings.jtiCacheSize} live proof ids and refuses new proofs until the oldest expire; raise dpop.jtiCacheSize or lower dpop.iatOffset`, { code: 'SVCGATE_DPOP_REPLAY_CACHE_FULL' });
      }
      throw invalidProof('too many DPoP proofs are in use: retry later');
    }
  };
}

/** Exactly one DPoP header holding one compact JWS, within the size bound. */
function oneProof(header: string | string[] | undefined, maxProofBytes: number): string {
  if (header === undefined || header === '') throw invalidProof('the request has no DPoP proof');
  // Node joins repeated unknown headers with ", "; a compact JWS never holds a comma.
  if (Array.isArray(header) ? header.length !== 1 : header.includes(',')) throw invalidProof('the request has more than one DPoP proof');
  const proof = Array.isArray(header) ? header[0]! : header;
  if (proof.length > maxProofBytes) throw invalidProof(`the DPoP proof is longer than ${maxProofBytes} bytes`);
  if (!COMPACT_JWS.test(proof)) throw invalidProof('the DPoP proof is not a JWT');
  return proof;
}

/** RFC 9449, section 7.1: a token bound to a key is never accepted as a bearer token, whether or not DPoP is enabled. */
export function checkBearerUse(payload: VerifiedPayload): void {
  if (cnfJkt(payload) !== undefined) throw invalidToken('the token is bound to a DPoP key: send it with the DPoP scheme');
}

/** The token's `cnf.jkt`, whatever its type, read as an own member; undefined when absent. */
function cnfJkt(payload: VerifiedPayload): unknown {
  const cnf = Object.hasOwn(payload, 'cnf') ? payload.cnf : undefined;
  return typeof cnf === 'object' && cnf !== null && Object.hasOwn(cnf, 'jkt') ? (cnf as { jkt: unknown }).jkt : undefined;
}

/** typ, alg and a public jwk whose RFC 7638 thumbprint is the token's cnf.jkt. */
async function checkHeader(proof: string, algorithms: string[], jkt: string): Promise<void> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(proof);
  } catch (error) {
    throw invalidProof('the DPoP proof is not a JWT', error);
  }
  if (typeof header.typ !== 'string' || header.typ.toLowerCase() !== 'dpop+jwt') throw invalidProof("the DPoP proof's typ is not dpop+jwt");
  if (typeof header.alg !== 'string' || !algorithms.includes(header.alg)) throw invalidProof("the DPoP proof's algorithm is not accepted");
  const jwk = header.jwk;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw invalidProof('the DPoP proof has no jwk');
  if (PRIVATE_MEMBERS.some((member) => Object.hasOwn(jwk, member))) throw invalidProof("the DPoP proof's jwk holds a private key");
  let thumbprint: string;
  try {
    thumbprint = await calculateJwkThumbprint(jwk, 'sha256');
  } catch (error) {
    throw invalidProof("the DPoP proof's jwk is not a public key", error);
  }
  if (thumbprint !== jkt) throw invalidProof('the DPoP proof is not signed with the key the token is bound to');
}

/**
 * htu names the request's URI: its origin is one of `origins` when they are configured (the
 * request's Host header is then not read), else the origin the request was received on.
 */
function sameUri(htu: unknown, requestUrl: string, origins: string[] | undefined): boolean {
  if (typeof htu !== 'string') return false;
  const claimed = normalizedUri(htu);
  if (claimed === undefined) return false;
  const received = normalizedUri(requestUrl);
  const path = received?.path ?? normalizedTargetPath(requestUrl);
  if (path === undefined || claimed.path !== path) return false;
  return origins === undefined ? received !== undefined && claimed.origin === received.origin : origins.includes(claimed.origin);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

function invalidProof(description: string, cause?: unknown): JsonWebTokenError {
  return new JsonWebTokenError(DPOP_PROOF_ERROR, cause instanceof Error ? `${description} (${cause.message})` : description, description);
}

function invalidToken(description: string): JsonWebTokenError {
  return new JsonWebTokenError('ERR_SVCGATE_DPOP_BINDING', description, description);
}
