import type { KeyObject } from 'node:crypto';
import type { VerifiedPayload } from '../policy/request/build-input';
import { LruCache } from '../policy/evaluate/lru-cache';
import { readBearerJwtConfig } from './bearer-jwt-config';
import type { BearerJwtConfig } from './bearer-jwt-options';
import { JsonWebTokenError } from './errors';
import { issuerChooser, type IssuerVerifier } from './keys/choose-issuer';
import type { KeySource } from './keys/key-set';
import { schemeHandler, type SchemeHandler } from './scheme-handler';
import { startupCheck } from './keys/startup-check';
import { tokenErrorDescription } from './token-error-description';
import { verifyJwt, type VerifiedJwt } from './jws/verify-jwt';

/**
 * Takes the raw Authorization header value (and, from the adapters, the request, for DPoP);
 * resolves to the verified payload. See SchemeHandler for the calls @oas-tools/core makes.
 */
export type BearerJwtHandler = SchemeHandler & {
  /**
   * Settles once the key set (or the issuer's metadata, then the key set) fetched at creation has
   * arrived or failed. A failure is a process warning (`SVCGATE_KEY_SET_UNAVAILABLE`, or
   * `SVCGATE_KEY_SET_UNUSABLE` for a set with no key for the algorithms) and ready() resolves;
   * with `strict: true` ready() rejects with a ConfigError instead. Resolves at once for a key
   * given in the configuration.
   */
  readonly ready: () => Promise<void>;
};

interface CachedToken {
  /** The whole token: only the exact same text is a hit. */
  token: string;
  payload: VerifiedPayload;
  /** Milliseconds since the epoch; never after the token's exp. */
  expiresAt: number;
  /** What verified it, asked at each hit whether that key is still in a fresh set. */
  source: KeySource;
  /** The header's kid when a string: as the key lookup reads it. */
  kid: string | undefined;
  /** The header's alg: a key the set keeps for other algorithms (or uses) no longer serves the token. */
  alg: string;
  key: KeyObject;
}

/**
 * The bearer-JWT security handler. Everything about the configuration is checked and the key
 * imported here, once; a request only parses the header and verifies the token, or finds it among
 * the tokens verified before (only the exact token text can hit).
 */
export function bearerJwt(config: BearerJwtConfig): BearerJwtHandler {
  const { issuers, maxHeaderBytes, cache: cacheSettings, dpop, strict, expRequiredByDefault } = readBearerJwtConfig(config);
  const chooseIssuer = issuerChooser(issuers);
  const verify = (token: string, { keys, checkClaims }: IssuerVerifier): VerifiedJwt | Promise<VerifiedJwt> => {
    const current = keys.current();
    return current instanceof Promise
      ? current.then(({ lookup, algorithms }) => verifyJwt(token, algorithms, lookup, checkClaims))
      : verifyJwt(token, current.algorithms, current.lookup, checkClaims);
  };
  const cache = new LruCache<string, CachedToken>(cacheSettings.size);
  // Started now, so a wrong key-set URL shows at start-up rather than as the first requests' 401s.
  const ready = startupCheck(issuers.map((issuer) => issuer.keys), strict);

  // A token verified before is answered at once, and so is a new one whose key is at hand (see verifyForRequest).
  const verifyToken = (token: string): VerifiedPayload | Promise<VerifiedPayload> => {
    const key = cacheKey(token);
    const cached = cache.get(key);
    // Another token with the same last characters is a miss, and leaves the cached one in place.
    if (cached?.token === token) {
      // A hit needs its key still in a set younger than cacheMaxAge: a key the provider dropped stops verifying cached tokens too.
      if (cached.expiresAt > Date.now() && cached.source.stillServes(cached.kid, cached.alg, cached.key)) return cached.payload;
      cache.delete(key);
    }
    return verifyAndCache(token);
  };

  const verifyAndCache = (token: string): VerifiedPayload | Promise<VerifiedPayload> => {
    const failed = (error: unknown): never => {
      throw toJsonWebTokenError(error, expRequiredByDefault);
    };
    try {
      const issuer = chooseIssuer(token);
      const verified = verify(token, issuer);
      const cached = (result: VerifiedJwt): VerifiedPayload => remember(token, issuer, result);
      return verified instanceof Promise ? verified.then(cached).catch(failed) : cached(verified);
    } catch (error) {
      return failed(error);
    }
  };

  const remember = (token: string, issuer: IssuerVerifier, { payload, header, key }: VerifiedJwt): VerifiedPayload => {
    const verified = payload as VerifiedPayload;
    cache.set(cacheKey(token), { token, payload: verified, expiresAt: cacheExpiry(verified, cacheSettings), source: issuer.keys, kid: typeof header.kid === 'string' ? header.kid : undefined, alg: header.alg as string, key });
    return verified;
  };

  return Object.assign(schemeHandler(verifyToken, maxHeaderBytes, dpop), { ready });
}

/**
 * The token cache is keyed by a token's last characters, its signature's, which are as good as a
 * hash of the whole token. Each request brings its token as a new string, which V8 hashes in full
 * at its first lookup: for a whole token (170 characters for HS256, 450 for RS256) that cost more
 * than the rest of a cache hit. The entry holds the whole token, and a hit needs the exact text.
 */
const CACHE_KEY_LENGTH = 24;

function cacheKey(token: string): string {
  return token.length > CACHE_KEY_LENGTH ? token.slice(-CACHE_KEY_LENGTH) : token;
}

/** The earliest of: exp, iat + maxTokenAge, and now + the cache's ttl. */
function cacheExpiry(payload: VerifiedPayload, settings: { ttlSeconds: number; maxTokenAgeSeconds: number | undefined }): number {
  const bounds = [Date.now() + settings.ttlSeconds * 1000];
  if (typeof payload.exp === 'number') bounds.push(payload.exp * 1000);
  if (settings.maxTokenAgeSeconds !== undefined && typeof payload.iat === 'number') bounds.push((payload.iat + settings.maxTokenAgeSeconds) * 1000);
  return Math.min(...bounds);
}

/**
 * Whatever stops a token (a JwtCheckFailure with jose's codes, a key set that cannot be fetched,
 * an error thrown on odd input) becomes one error class; its description is chosen from the code
 * and claim only, as the messages may quote the token.
 */
function toJsonWebTokenError(error: unknown, expRequiredByDefault: boolean): JsonWebTokenError {
  if (error instanceof JsonWebTokenError) return error;
  const { code, claim, reason } = (error ?? {}) as { code?: unknown; claim?: unknown; reason?: unknown };
  const message = error instanceof Error ? error.message : String(error);
  const stableCode = typeof code === 'string' && code.startsWith('ERR_J') ? code : 'ERR_JWT_INVALID';
  return new JsonWebTokenError(stableCode, message, tokenErrorDescription({ code: stableCode, claim, claimReason: reason, expRequiredByDefault }));
}
