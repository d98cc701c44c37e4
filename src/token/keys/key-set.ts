import { createPublicKey, KeyObject, type JsonWebKey } from 'node:crypto';
import type { JWK } from 'jose';
import { shownUrl } from '../../net/shown-url';
import { ConfigError } from '../../policy/compile/config-error';
import { algorithmsForKey } from './algorithms';
import { fetchJsonBounded, MAX_DOCUMENT_BYTES, RemoteJsonError } from './fetch-json-bounded';
import { JwtCheckFailure } from '../jws/jwt-check-failure';
import { localJwkSet, type JwkSetLookup } from '../jws/local-jwk-set';
import type { JwsHeader } from '../jws/read-compact';
import type { KeyLookup } from '../jws/verify-jwt';

/** Milliseconds, named and defaulted as in jose's createRemoteJWKSet and express-oauth2-jwt-bearer. */
export interface KeySetTimings {
  /** No fetch for a `kid` missing from the set sooner than this after the last successful fetch. */
  cooldownDuration: number;
  /** A set older than this is fetched again before it verifies a token, and no cached token verified with its keys is served. */
  cacheMaxAge: number;
  /** For one fetch, from connecting to the last byte of the body. */
  timeoutDuration: number;
}

export const DEFAULT_TIMINGS: Readonly<KeySetTimings> = { cooldownDuration: 30_000, cacheMaxAge: 600_000, timeoutDuration: 5_000 };

/**
 * The key set cannot be fetched (or its issuer's metadata cannot). A request meets it as a 401
 * (JsonWebTokenError with this code); `reason`, for logs, names the URL and what failed.
 */
export class KeySetUnavailableError extends Error {
  readonly code = 'ERR_JWKS_UNAVAILABLE';
  override readonly name = 'KeySetUnavailableError';

  constructor(readonly reason: string) {
    super(reason);
  }
}

/** What a token is verified with at this moment. */
export interface VerificationKeys {
  lookup: KeyLookup;
  algorithms: ReadonlySet<string>;
}

/** Something the start-up check found: a warning, or with `strict` the error ready() rejects with. */
export interface StartupProblem {
  error: ConfigError;
  warningCode: 'SVCGATE_KEY_SET_UNAVAILABLE' | 'SVCGATE_KEY_SET_UNUSABLE';
}

/** The keys one issuer's tokens are verified with: given in the configuration, or fetched from the provider. */
export interface KeySource {
  /** Rejects with KeySetUnavailableError when they cannot be fetched. */
  current(): VerificationKeys | Promise<VerificationKeys>;
  /**
   * Whether a token verified earlier with `key` under the header's `kid` and `alg` may
   * still be served from the token cache: the key is in the current set, which is younger than
   * cacheMaxAge, and still verifies `alg` there (its use, key_ops and alg may have changed).
   * Otherwise the token is verified again, which refetches a stale set.
   */
  stillServes(kid: string | undefined, alg: string, key: unknown): boolean;
  /** The start-up check: fetches what a first token would need. Never rejects. */
  check(): Promise<StartupProblem[]>;
}

const FILE = '<bearerJwt config>';

/** A secret, a public key or a local JWK set: nothing to fetch, and a cached token's key never leaves. */
export function fixedKeys(key: KeyObject | JwkSetLookup, algorithms: string[]): KeySource {
  const keys: VerificationKeys = { lookup: key instanceof KeyObject ? () => key : key, algorithms: new Set(algorithms) };
  return { current: () => keys, stillServes: () => true, check: async () => [] };
}

/** The JWK set at `url` (configured at `at`, e.g. `$.jwks`), fetched, refreshed and bounded by `timings`. */
export function remoteKeys(url: URL, algorithms: string[], timings: KeySetTimings, at: string): KeySource {
  const set = new RemoteKeySet(url, timings);
  const keys: VerificationKeys = { lookup: set.lookup, algorithms: new Set(algorithms) };
  return {
    current: () => keys,
    stillServes: (kid, alg, key) => set.stillServes(kid, alg, key),
    check: () => checkKeySet(set, algorithms, at),
  };
}

/**
 * The fetch and check of a set at start-up, as problems to report: unreachable, or holding no
 * key the configured algorithms can use (every token would be refused).
 */
export async function checkKeySet(set: RemoteKeySet, algorithms: readonly string[], at: string): Promise<StartupProblem[]> {
  let snapshot: Snapshot;
  try {
    snapshot = await set.loaded();
  } catch (error) {
    return [unavailableProblem(error, at)];
  }
  if (snapshot.keys.some((key) => key.algorithms.some((algorithm) => algorithms.includes(algorithm)))) return [];
  const error = new ConfigError(
    FILE,
    at,
    `the key set at ${shownUrl(set.url)} holds no key for ${algorithms.join(', ')} (every token would be refused)`,
    "set algorithms to those of the provider's signing keys, or check that the URL is the provider's key set",
  );
  return [{ error, warningCode: 'SVCGATE_KEY_SET_UNUSABLE' }];
}

export function unavailableProblem(error: unknown, at: string): StartupProblem {
  const reason = error instanceof KeySetUnavailableError ? error.reason : String(error);
  const configError = new ConfigError(
    FILE,
    at,
    `the key set cannot be fetched at start-up: ${reason}`,
    'check the URL and that the provider answers; until it does, every token is refused (without strict: true this is only a warning, for a provider that starts later)',
  );
  return { error: configError, warningCode: 'SVCGATE_KEY_SET_UNAVAILABLE' };
}

/** One fetched key set. */
interface Snapshot {
  readonly lookup: JwkSetLookup;
  /** Date.now() when it arrived. */
  readonly fetchedAt: number;
  readonly keys: readonly KeyEntry[];
}

interface KeyEntry {
  kid: string | undefined;
  /** The public key's own members (see keyIdentity), the same however the JWK was written. */
  identity: string;
  /** What the key verifies, after its `alg`, `use` and `key_ops`. */
  algorithms: string[];
}

/**
 * A remote JWK set that behaves as jose's createRemoteJWKSet (fetched when missing or older than
 * cacheMaxAge, and again for an unknown `kid` once the cooldown has passed; concurrent lookups
 * share one fetch; a set that cannot be refreshed verifies nothing), with what jose's lacks: the
 * body is bounded in size and the whole fetch in time (jose reads any body to its end), and the
 * token cache can ask whether a key is still in the set.
 */
export class RemoteKeySet {
  private snapshot: Snapshot | undefined;
  private pending: Promise<Snapshot> | undefined;
  /** When a fetch last failed, and why: an unknown kid, and a stale set, wait out the cooldown from it too. */
  private failed: { at: number; error: unknown } | undefined;

  constructor(
    readonly url: URL,
    private readonly timings: KeySetTimings,
  ) {}

  /** The key for a token's header: at once from a fresh set, else once the set is fetched. */
  readonly lookup = (header: JwsHeader): KeyObject | Promise<KeyObject> => {
    const snapshot = this.snapshot;
    return snapshot !== undefined && this.fresh(snapshot) ? this.lookupIn(snapshot, header) : this.reload().then((loaded) => this.lookupIn(loaded, header));
  };

  private lookupIn(snapshot: Snapshot, header: JwsHeader): KeyObject | Promise<KeyObject> {
    try {
      return snapshot.lookup(header);
    } catch (error) {
      if (!(error instanceof JwtCheckFailure) || error.code !== 'ERR_JWKS_NO_MATCHING_KEY') throw error;
      // Another lookup may have brought a newer set meanwhile; else fetch, unless one was fetched just now.
      const latest = this.snapshot ?? snapshot;
      if (latest !== snapshot) return latest.lookup(header);
      // From the last fetch, good or failed: else, while the provider is down, each made-up kid would bring a fetch of its own.
      if (Date.now() < Math.max(latest.fetchedAt, this.failed?.at ?? -Infinity) + this.timings.cooldownDuration) throw error;
      return this.reload().then((reloaded) => reloaded.lookup(header));
    }
  }

  stillServes(kid: string | undefined, alg: string, key: unknown): boolean {
    const snapshot = this.snapshot;
    if (snapshot === undefined || !this.fresh(snapshot) || !(key instanceof KeyObject)) return false;
    const identity = keyIdentity(key);
    return identity !== undefined && snapshot.keys.some((entry) => entry.identity === identity && (kid === undefined || entry.kid === kid) && entry.algorithms.includes(alg));
  }

  /** The set, fetched when there is none yet or it is older than cacheMaxAge. */
  loaded(): Promise<Snapshot> {
    const snapshot = this.snapshot;
    return snapshot !== undefined && this.fresh(snapshot) ? Promise.resolve(snapshot) : this.reload();
  }

  private reload(): Promise<Snapshot> {
    // A stale set the provider failed to send again verifies nothing, and is not asked for again within the cooldown (a set never fetched is: the provider may start later).
    const failed = this.failed;
    if (this.snapshot !== undefined && failed !== undefined && Date.now() < failed.at + this.timings.cooldownDuration) return Promise.reject(failed.error);
    this.pending ??= this.fetchSnapshot()
      .then((snapshot) => {
        this.failed = undefined;
        return snapshot;
      })
      .catch((error: unknown) => {
        this.failed = { at: Date.now(), error };
        throw error;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  private fresh(snapshot: Snapshot): boolean {
    return Date.now() - snapshot.fetchedAt < this.timings.cacheMaxAge;
  }

  private async fetchSnapshot(): Promise<Snapshot> {
    let json: unknown;
    try {
      json = await fetchJsonBounded(this.url, { timeoutMs: this.timings.timeoutDuration, maxBytes: MAX_DOCUMENT_BYTES });
    } catch (error) {
      throw new KeySetUnavailableError(`the key set ${error instanceof RemoteJsonError ? error.message : shownUrl(this.url)}`);
    }
    const snapshot = readSnapshot(json, shownUrl(this.url));
    this.snapshot = snapshot;
    return snapshot;
  }
}

/** The JWK members a verifying key is made of; anything else the provider sent is left out (but what makes jose refuse the key, below), so no odd value reaches the key import. */
const STRING_MEMBERS = ['kty', 'kid', 'alg', 'use', 'crv', 'x', 'y', 'n', 'e'] as const;

/** A private JWK's own members (RFC 7518, 6.2.2 and 6.3.2): kept only to refuse the key as jose does. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'] as const;

function readSnapshot(json: unknown, shown: string): Snapshot {
  const keys = (json as { keys?: unknown } | null)?.keys;
  if (typeof json !== 'object' || json === null || !Array.isArray(keys)) throw new KeySetUnavailableError(`the key set ${shown} is not a JWK set ({ "keys": [...] })`);
  const jwks: JWK[] = keys.filter((key): key is Record<string, unknown> => typeof key === 'object' && key !== null && !Array.isArray(key)).map(publicMembers);
  return { lookup: localJwkSet(jwks as unknown as Record<string, unknown>[]), fetchedAt: Date.now(), keys: jwks.flatMap(keyEntry) };
}

function publicMembers(key: Record<string, unknown>): JWK {
  const jwk: Partial<JWK> = {};
  for (const name of STRING_MEMBERS) {
    const value = key[name];
    if (typeof value === 'string') jwk[name] = value;
  }
  // Kept as sent, as jose's set reads it: a list without 'verify' (whatever else it holds) excludes the key.
  const ops = key.key_ops;
  if (Array.isArray(ops)) jwk.key_ops = [...ops] as string[];
  // A set that publishes a private key is broken (whoever read it can sign): its tokens are refused (ERR_JWKS_INVALID), not verified with the public half.
  // With all its private members as sent, as jose imports it: Node reads an RSA private key only whole (d alone fails as a malformed key).
  const kept = jwk as Record<string, unknown>;
  if (key.d) for (const name of PRIVATE_MEMBERS) if (key[name] !== undefined) kept[name] = key[name];
  // Any value, as jose's import sees it: an RSA key with other primes is not supported (ERR_JOSE_NOT_SUPPORTED), never verified without them.
  if (key.oth !== undefined) kept.oth = key.oth;
  return jwk as JWK;
}

/** Keys Node cannot import verify nothing, and private ones and RSA keys with other primes are refused, so none is an entry. */
function keyEntry(jwk: JWK): KeyEntry[] {
  if (jwk.d !== undefined || 'oth' in jwk) return [];
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
  } catch {
    return [];
  }
  const identity = keyIdentity(key);
  return identity === undefined ? [] : [{ kid: jwk.kid, identity, algorithms: usableAlgorithms(jwk, algorithmsForKey(key)) }];
}

/** As jose's local set selects keys: `use` must be sig, `key_ops` hold verify, `alg` match. */
function usableAlgorithms(jwk: JWK, byKey: readonly string[]): string[] {
  if (jwk.use !== undefined && jwk.use !== 'sig') return [];
  if (jwk.key_ops !== undefined && !jwk.key_ops.includes('verify')) return [];
  return byKey.filter((algorithm) => jwk.alg === undefined || algorithm === jwk.alg);
}

const identities = new WeakMap<KeyObject, string>();

/**
 * The key's public members as Node exports them, so a JWK written with other padding or member
 * order is the same key. Remembered per KeyObject: a set's lookup hands out one per key and algorithm.
 * undefined for a key Node cannot export as a JWK, which then matches nothing (a cache miss,
 * never an error on the request's path).
 */
function keyIdentity(key: KeyObject): string | undefined {
  let identity = identities.get(key);
  if (identity === undefined) {
    try {
      const { kty, crv, n, e, x, y } = key.export({ format: 'jwk' });
      identity = JSON.stringify([kty, crv, n, e, x, y]);
    } catch {
      return undefined;
    }
    identities.set(key, identity);
  }
  return identity;
}
