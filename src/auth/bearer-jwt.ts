import { jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { VerifiedPayload } from '../policy/build-input';
import { deepFreeze, LruCache } from '../policy/lru-cache';
import { readBearerJwtConfig, type BearerJwtConfig } from './bearer-jwt-config';
import { JsonWebTokenError, SecurityError } from './errors';

/** Takes the raw Authorization header value; resolves to the verified payload. */
export type BearerJwtHandler = (authorization: unknown) => Promise<VerifiedPayload>;

/** RFC 6750: the scheme, case-insensitive, one or more spaces, and one b64token. */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

interface CachedToken {
  payload: VerifiedPayload;
  /** Milliseconds since the epoch; never after the token's exp. */
  expiresAt: number;
}

/**
 * The bearer-JWT security handler. Everything about the configuration is checked and the key
 * imported here, once; a request only parses the header and verifies the token, or finds it among
 * the tokens verified before (keyed by the exact token text, so no other string can hit).
 */
export function bearerJwt(config: BearerJwtConfig): BearerJwtHandler {
  const { key, options, maxHeaderBytes, cache: cacheSettings } = readBearerJwtConfig(config);
  const verify = (token: string) => (typeof key === 'function' ? jwtVerify(token, key as JWTVerifyGetKey, options) : jwtVerify(token, key, options));
  const cache = new LruCache<string, CachedToken>(cacheSettings.size);

  return async (authorization) => {
    const token = bearerToken(authorization, maxHeaderBytes);
    const cached = cache.get(token);
    if (cached && cached.expiresAt > Date.now()) return cached.payload;
    if (cached) cache.delete(token);
    let payload: VerifiedPayload;
    try {
      payload = deepFreeze((await verify(token)).payload as VerifiedPayload);
    } catch (error) {
      throw toJsonWebTokenError(error);
    }
    cache.set(token, { payload, expiresAt: cacheExpiry(payload, cacheSettings) });
    return payload;
  };
}

/** The earliest of: exp, iat + maxTokenAge, and now + the cache's ttl. */
function cacheExpiry(payload: VerifiedPayload, settings: { ttlSeconds: number; maxTokenAgeSeconds: number | undefined }): number {
  const bounds = [Date.now() + settings.ttlSeconds * 1000];
  if (typeof payload.exp === 'number') bounds.push(payload.exp * 1000);
  if (settings.maxTokenAgeSeconds !== undefined && typeof payload.iat === 'number') bounds.push((payload.iat + settings.maxTokenAgeSeconds) * 1000);
  return Math.min(...bounds);
}

function bearerToken(authorization: unknown, maxHeaderBytes: number): string {
  if (typeof authorization !== 'string') throw new SecurityError('no Authorization header');
  // Checked before any parsing, so an oversized header costs nothing more than this comparison.
  if (authorization.length > maxHeaderBytes) throw new SecurityError(`the Authorization header is longer than ${maxHeaderBytes} bytes`);
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined) throw new SecurityError('the Authorization header is not "Bearer <token>"');
  return token;
}

/** Whatever jose throws (its JOSEErrors, but also TypeErrors on odd input) becomes one error class. */
function toJsonWebTokenError(error: unknown): JsonWebTokenError {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return new JsonWebTokenError(typeof code === 'string' && code.startsWith('ERR_J') ? code : 'ERR_JWT_INVALID', message);
}
