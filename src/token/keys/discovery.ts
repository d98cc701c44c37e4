import { shownUrl } from '../../net/shown-url';
import { ASYMMETRIC_ALGORITHMS } from './algorithms';
import { fetchJsonBounded, MAX_DOCUMENT_BYTES, RemoteJsonError, type FetchLimits } from './fetch-json-bounded';
import { checkKeySet, KeySetUnavailableError, RemoteKeySet, unavailableProblem, type KeySetTimings, type KeySource, type VerificationKeys } from './key-set';

/** What svcgate reads of an issuer's metadata; the rest of the document is ignored. */
export interface IssuerMetadata {
  issuer: string;
  jwksUri: URL;
  /** id_token_signing_alg_values_supported without none, HS* and names no key set verifies. */
  algorithms: string[];
}

/**
 * The JWK set named by the metadata of the issuer at `base` (configured at `at`). The algorithms
 * are the configured ones, else the metadata's. A new `jwks_uri` after a refresh brings a new set.
 */
export function discoveredKeys(base: URL, issuers: readonly string[], algorithms: string[] | undefined, timings: KeySetTimings, at: string): KeySource {
  const metadata = new IssuerMetadataSource(base, issuers, timings);
  let set: RemoteKeySet | undefined;
  // The keys of the metadata last read: a request finds them without a promise while that metadata is at hand.
  let last: { metadata: IssuerMetadata; keys: VerificationKeys } | undefined;

  const keysOf = (found: IssuerMetadata): VerificationKeys => {
    if (last?.metadata === found) return last.keys;
    const allowed = algorithms ?? found.algorithms;
    if (allowed.length === 0) {
      throw new KeySetUnavailableError(`the metadata of ${shownUrl(base)} lists no signing algorithm a key set verifies (id_token_signing_alg_values_supported); set algorithms`);
    }
    if (set?.url.href !== found.jwksUri.href) set = new RemoteKeySet(found.jwksUri, timings);
    last = { metadata: found, keys: { lookup: set.lookup, algorithms: new Set(allowed) } };
    return last.keys;
  };
  const resolve = async (): Promise<VerificationKeys> => keysOf(await metadata.get());

  return {
    current: () => {
      const atHand = metadata.atHand();
      return atHand === undefined ? resolve() : keysOf(atHand);
    },
    stillServes: (kid, alg, key) => set?.stillServes(kid, alg, key) ?? false,
    check: async () => {
      try {
        const keys = await resolve();
        return await checkKeySet(set!, [...keys.algorithms], at);
      } catch (error) {
        return [unavailableProblem(error, at)];
      }
    },
  };
}

/**
 * An issuer's metadata, fetched when first needed and again once older than cacheMaxAge.
 * Concurrent requests share one fetch; a failed refresh keeps the last good metadata and is
 * tried again after cooldownDuration, so a provider that is down costs one slow request per
 * cooldown rather than one per request.
 */
export class IssuerMetadataSource {
  private last: { metadata: IssuerMetadata; fetchedAt: number } | undefined;
  private failedAt = -Infinity;
  private pending: Promise<IssuerMetadata> | undefined;

  constructor(
    readonly base: URL,
    private readonly issuers: readonly string[],
    private readonly timings: KeySetTimings,
  ) {}

  /** The metadata when no fetch is due: younger than cacheMaxAge, or kept after a refresh that failed within the cooldown. */
  atHand(): IssuerMetadata | undefined {
    const last = this.last;
    const now = Date.now();
    return last !== undefined && (now - last.fetchedAt < this.timings.cacheMaxAge || now - this.failedAt < this.timings.cooldownDuration) ? last.metadata : undefined;
  }

  async get(): Promise<IssuerMetadata> {
    const atHand = this.atHand();
    if (atHand !== undefined) return atHand;
    try {
      return await this.refresh();
    } catch (error) {
      if (this.last === undefined) throw error;
      return this.last.metadata;
    }
  }

  private refresh(): Promise<IssuerMetadata> {
    this.pending ??= this.fetchMetadata().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async fetchMetadata(): Promise<IssuerMetadata> {
    try {
      const { url, json } = await fetchMetadataDocument(this.base, { timeoutMs: this.timings.timeoutDuration, maxBytes: MAX_DOCUMENT_BYTES });
      const metadata = readMetadata(json, url, this.issuers);
      this.last = { metadata, fetchedAt: Date.now() };
      return metadata;
    } catch (error) {
      this.failedAt = Date.now();
      throw error;
    }
  }
}

/**
 * Where the metadata of the issuer at `base` is: OpenID Connect Discovery 1.0 (section 4) appends
 * the well-known path to the issuer's; RFC 8414 (section 3.1) inserts it between host and path.
 */
export function metadataUrls(base: URL): [URL, URL] {
  const path = base.pathname.replace(/\/+$/, '');
  const openid = new URL(base.href);
  openid.pathname = `${path}/.well-known/openid-configuration`;
  const oauth = new URL(base.href);
  oauth.pathname = `/.well-known/oauth-authorization-server${path}`;
  return [openid, oauth];
}

/** The OpenID document, else the RFC 8414 one when the first place answers with an error status (a provider that is only an OAuth server). */
async function fetchMetadataDocument(base: URL, limits: FetchLimits): Promise<{ url: URL; json: unknown }> {
  const [openid, oauth] = metadataUrls(base);
  try {
    return { url: openid, json: await fetchJsonBounded(openid, limits) };
  } catch (first) {
    // A timeout or an oversized answer is not "no such document": trying elsewhere would double the wait.
    if (!(first instanceof RemoteJsonError) || first.status === undefined) throw metadataError(first);
    try {
      return { url: oauth, json: await fetchJsonBounded(oauth, limits) };
    } catch (second) {
      throw new KeySetUnavailableError(`no issuer metadata: ${first.message}; ${second instanceof Error ? second.message : String(second)}`);
    }
  }
}

function metadataError(error: unknown): KeySetUnavailableError {
  return new KeySetUnavailableError(`the issuer metadata ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * RFC 8414 section 3.3 and OpenID Connect Discovery section 4.3: the document's issuer must be
 * the one expected, or another issuer's keys could be trusted. A document fetched over https may
 * not send the key set to plain http, where anyone on the path could replace the keys.
 */
export function readMetadata(json: unknown, from: URL, issuers: readonly string[]): IssuerMetadata {
  const shown = shownUrl(from);
  const document = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
  if (document === undefined) throw new KeySetUnavailableError(`the issuer metadata ${shown} is not a JSON object`);
  const { issuer, jwks_uri: jwksUri, id_token_signing_alg_values_supported: algorithms } = document;
  if (typeof issuer !== 'string' || !issuers.includes(issuer)) {
    const named = typeof issuer === 'string' ? JSON.stringify(issuer.slice(0, 200)) : 'no issuer';
    throw new KeySetUnavailableError(`the issuer metadata ${shown} names ${named}, not ${issuers.map((expected) => JSON.stringify(expected)).join(' or ')}`);
  }
  const keySetUrl = typeof jwksUri === 'string' ? parseUrl(jwksUri) : undefined;
  if (keySetUrl === undefined || (keySetUrl.protocol !== 'https:' && keySetUrl.protocol !== 'http:')) {
    throw new KeySetUnavailableError(`the issuer metadata ${shown} has no http(s) jwks_uri`);
  }
  if (from.protocol === 'https:' && keySetUrl.protocol !== 'https:') {
    throw new KeySetUnavailableError(`the issuer metadata ${shown} names a jwks_uri over plain http`);
  }
  const listed = Array.isArray(algorithms) ? algorithms.filter((algorithm): algorithm is string => typeof algorithm === 'string' && ASYMMETRIC_ALGORITHMS.includes(algorithm)) : [];
  return { issuer, jwksUri: keySetUrl, algorithms: [...new Set(listed)] };
}

/** URL.canParse is missing before Node 18.17. */
function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
