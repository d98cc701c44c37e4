import { ConfigError } from '../../policy/compile/config-error';
import { ASYMMETRIC_ALGORITHMS } from './algorithms';
import { discoveredKeys } from './discovery';
import { DEFAULT_TIMINGS, remoteKeys, type KeySetTimings, type KeySource } from './key-set';

const FILE = '<bearerJwt config>';
const TIMING_FIELDS = ['cooldownDuration', 'cacheMaxAge', 'timeoutDuration'] as const;

/** The fields of a bearerJwt configuration (or of one of its issuers) that say where the keys are. */
export interface KeyLocation {
  secret?: unknown;
  jwks?: unknown;
  issuerBaseURL?: string | URL | undefined;
}

/** A key set fetched from the provider: `jwks` as a URL, or `issuerBaseURL`. */
export function isRemote(location: KeyLocation): boolean {
  return typeof location.jwks === 'string' || location.jwks instanceof URL || location.issuerBaseURL !== undefined;
}

/** The timings, defaulted as jose does; giving one when nothing is fetched is a mistake worth saying. */
export function readKeySetTimings(given: Partial<Record<keyof KeySetTimings, number | undefined>>, remote: boolean): KeySetTimings {
  const named = TIMING_FIELDS.find((field) => given[field] !== undefined);
  if (named !== undefined && !remote) {
    throw new ConfigError(FILE, `$.${named}`, `${named} applies only to a key set that is fetched`, 'remove it, or give jwks as a URL or issuerBaseURL');
  }
  return {
    cooldownDuration: given.cooldownDuration ?? DEFAULT_TIMINGS.cooldownDuration,
    cacheMaxAge: given.cacheMaxAge ?? DEFAULT_TIMINGS.cacheMaxAge,
    timeoutDuration: given.timeoutDuration ?? DEFAULT_TIMINGS.timeoutDuration,
  };
}

/** The accepted issuers: as given, else the issuerBaseURL as written (OpenID Connect: the issuer is that URL). */
export function readIssuer(issuer: string | string[] | undefined, issuerBaseURL: string | URL | undefined, at: string): string | string[] {
  if (issuer !== undefined) return issuer;
  if (issuerBaseURL !== undefined) return typeof issuerBaseURL === 'string' ? issuerBaseURL : issuerBaseURL.href;
  throw new ConfigError(FILE, `${at}.issuer`, 'no issuer is given', 'give issuer (the accepted iss value), or issuerBaseURL to discover it');
}

/**
 * The source of a fetched key set, or undefined when the configuration holds the key itself.
 * `at` is the JSON path of the object the fields are in (`$`, or an entry of `issuers`);
 * `algorithms` undefined means none were configured, which with issuerBaseURL means the metadata's.
 */
export function readRemoteKeySource(location: KeyLocation, issuers: readonly string[], algorithms: string[] | undefined, timings: KeySetTimings, at: string): KeySource | undefined {
  const { secret, jwks, issuerBaseURL } = location;
  if (!isRemote(location)) return undefined;
  if (issuerBaseURL !== undefined && (secret !== undefined || jwks !== undefined)) {
    throw new ConfigError(FILE, `${at}.issuerBaseURL`, `issuerBaseURL is given with ${secret !== undefined ? 'secret' : 'jwks'}`, 'give issuerBaseURL to discover the key set, or the key itself, not both');
  }
  if (secret !== undefined) throw new ConfigError(FILE, at, 'both secret and jwks are given', 'give secret for one key, or jwks for a key set');
  const misfits = (algorithms ?? []).filter((algorithm) => !ASYMMETRIC_ALGORITHMS.includes(algorithm));
  if (misfits.length > 0) {
    throw new ConfigError(FILE, `${at}.algorithms`, `${misfits.join(', ')} cannot be used with a JWK set`, 'list the asymmetric algorithms of the set, e.g. ["RS256"]');
  }
  if (issuerBaseURL === undefined) {
    if (algorithms === undefined) throw new ConfigError(FILE, `${at}.algorithms`, 'HS256 (the default) cannot be used with a JWK set', 'list the asymmetric algorithms of the set, e.g. ["RS256"]');
    return remoteKeys(readHttpUrl(jwks as string | URL, `${at}.jwks`), algorithms, timings, `${at}.jwks`);
  }
  const base = readHttpUrl(issuerBaseURL, `${at}.issuerBaseURL`);
  if (base.search !== '' || base.hash !== '') {
    throw new ConfigError(FILE, `${at}.issuerBaseURL`, 'an issuer URL has no query or fragment (RFC 8414, section 2)', 'give the issuer URL alone, e.g. https://login.example.com/realms/main');
  }
  return discoveredKeys(base, issuers, algorithms, timings, `${at}.issuerBaseURL`);
}

function readHttpUrl(value: string | URL, at: string): URL {
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(FILE, at, `${url.protocol} is not fetched`, 'give an https (or http) URL');
  return url;
}
