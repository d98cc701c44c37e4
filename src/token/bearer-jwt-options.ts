import type { KeyObject } from 'node:crypto';
import type { DpopOptions } from './dpop/dpop-options';

// The option types of bearerJwt(config), written out for their documentation; bearer-jwt-config.ts
// validates them with zod and checks at compile time that its schemas accept exactly these fields.

/**
 * An HMAC secret, or a public key: a KeyObject, or PEM as a string or a Buffer. A secret that holds
 * a key (PEM, DER or JWK) is a ConfigError with HS* algorithms; an empty one or a private key too.
 */
export type SecretOption = string | Uint8Array | KeyObject;

/** A remote JWK set (its URL, as a string or a URL) or a local one (`{ keys: [...] }`). */
export type JwksOption = string | URL | { keys: Record<string, unknown>[] };

/**
 * Accepted `aud` values: a token's `aud` needs one of them. Each value must not be empty or blank.
 * `false` turns the audience check off on purpose.
 */
export type AudienceOption = string | string[] | false;

/** The configuration of {@link bearerJwt}, validated when it is called (a bad one throws ConfigError). */
export interface BearerJwtConfig {
  /**
   * The accepted `iss` values. Required, except with `issuerBaseURL` (default: that URL as
   * written) or `issuers`.
   */
  issuer?: string | string[];
  /**
   * The key tokens are verified with: an HMAC secret (at least 32 bytes, else a warning), or a
   * public key. Required unless `jwks`, `issuerBaseURL` or `issuers` is given.
   */
  secret?: SecretOption;
  /**
   * The allowed JWS algorithms, any jose verifies; each must fit the key (ConfigError otherwise),
   * and `none` is always refused. Default `["HS256"]`; with `issuerBaseURL`, the provider's
   * (its metadata's `id_token_signing_alg_values_supported`, without `none` and HS*).
   */
  algorithms?: string[];
  /**
   * The original library's spelling of `algorithms`, still accepted; giving both with different
   * values is a ConfigError.
   * @deprecated Use `algorithms`.
   */
  algoritms?: string[];
  /**
   * Accepted `aud` values. Required with `jwks`, `issuerBaseURL` or a public key (ConfigError
   * without it); with an HMAC secret, leaving it out is the warning `SVCGATE_NO_AUDIENCE`
   * (ConfigError with `strict`). `false`: no audience check, on purpose. Default: none.
   */
  audience?: AudienceOption;
  /**
   * Leeway for `exp` and `nbf`, in seconds, or a jose duration string (`'30s'`, `'2m'`).
   * Default `5` (seconds).
   */
  clockTolerance?: number | string;
  /**
   * Tokens whose `iat` is older than this are refused: seconds, or a jose duration string
   * (tokens checked against a string are not cached). Default: no limit.
   */
  maxTokenAge?: number | string;
  /**
   * Claims a token must carry. Default `["exp"]`; a list given here replaces it, so `[]` accepts
   * tokens without `exp`.
   */
  requiredClaims?: string[];
  /**
   * A remote JWK set's URL (fetched, refreshed, keys found by `kid`) or a local set
   * `{ keys: [...] }`. Not with `secret`, not with HS* algorithms. Default: none.
   */
  jwks?: JwksOption;
  /**
   * `'rfc9068'`: JWT access tokens only (RFC 9068): header `typ` `at+jwt` and the profile's
   * claims required; needs `audience` (not `false`). Default: no profile.
   */
  profile?: 'rfc9068';
  /**
   * Several issuers, each verified only with its own key and checks, chosen by the token's `iss`;
   * instead of the top-level `issuer`, `secret`, `jwks` and `issuerBaseURL`. Default: none.
   */
  issuers?: BearerJwtIssuerOptions[];
  /** An `Authorization` header longer than this many bytes is refused before any parsing. Default `8192` (bytes). */
  maxHeaderBytes?: number;
  /** RFC 9449 DPoP: `true` for the defaults, or the options; `false` or absent: off (the default). */
  dpop?: boolean | DpopOptions;
  /**
   * Milliseconds: a remote key set is not fetched again for an unknown `kid` sooner than this
   * after the last fetch. Default `30000` (ms).
   */
  cooldownDuration?: number;
  /**
   * Milliseconds: a remote key set (and a discovery document) older than this is fetched again
   * before it verifies a token, and cached tokens verified with its keys are verified again.
   * Default `600000` (ms).
   */
  cacheMaxAge?: number;
  /** Milliseconds one whole fetch of a key set or discovery document may take (connect, headers, body). Default `5000` (ms). */
  timeoutDuration?: number;
  /**
   * The issuer's URL: its metadata (OpenID Connect discovery, else RFC 8414) names the key set and
   * the algorithms. Instead of `jwks`. Default: none.
   */
  issuerBaseURL?: string | URL;
  /**
   * Warnings are errors: the start-up check of a fetched key set rejects `ready()` instead of
   * warning, and a `secret` without `audience` is a ConfigError. Default `false`.
   */
  strict?: boolean;
  /** The verified-token cache, by exact token text; `false` turns it off. Default `{ size: 10000, ttlSeconds: 300 }`. */
  cache?: false | BearerJwtCacheOptions;
}

/** One entry of {@link BearerJwtConfig.issuers}: an issuer with its own key and, optionally, algorithms and audience. */
export interface BearerJwtIssuerOptions {
  /** The accepted `iss` values of this entry. Default: its `issuerBaseURL` as written (required without it). */
  issuer?: string | string[];
  /** This issuer's HMAC secret or public key; exactly one of `secret`, `jwks` and `issuerBaseURL`. */
  secret?: SecretOption;
  /** This issuer's JWK set (URL or local set); exactly one of `secret`, `jwks` and `issuerBaseURL`. */
  jwks?: JwksOption;
  /** This issuer's URL, for discovery; exactly one of `secret`, `jwks` and `issuerBaseURL`. */
  issuerBaseURL?: string | URL;
  /** This issuer's allowed algorithms. Default: the top-level `algorithms`. */
  algorithms?: string[];
  /** This issuer's accepted `aud` values, or `false`. Default: the top-level `audience`. */
  audience?: AudienceOption;
}

/** The verified-token cache of {@link BearerJwtConfig.cache}. */
export interface BearerJwtCacheOptions {
  /** Tokens remembered at once (the least recently used leave first); `0` caches nothing. Default `10000`. */
  size?: number;
  /**
   * Seconds a verified token is served from the cache at most; never past its `exp`, its
   * `iat + maxTokenAge`, or `cacheMaxAge` of its key set. Default `300` (seconds).
   */
  ttlSeconds?: number;
}
