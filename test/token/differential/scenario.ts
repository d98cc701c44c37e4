import type { KeyObject } from 'node:crypto';
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import { bearerJwt, JsonWebTokenError, SecurityError, type BearerJwtHandler } from '../../../src/auth';
import { tokenErrorDescription } from '../../../src/token/token-error-description';

/**
 * One svcgate configuration and the jose 5.10 jwtVerify call it must answer like. The oracle's
 * options are written here from the documented meaning of each option, not read from svcgate's
 * code, so a mistake in svcgate's option mapping shows as a divergence too.
 */
export interface ScenarioSpec {
  name: string;
  /** An HMAC secret (text), or a public key. */
  secret?: string | KeyObject;
  jwks?: { keys: Record<string, unknown>[] };
  /** A JWK set fetched from this URL: svcgate's `jwks` given as a URL, the oracle's createRemoteJWKSet. */
  jwksUrl?: string;
  /**
   * An issuer whose metadata (/.well-known/openid-configuration) names the set: svcgate's
   * issuerBaseURL; the oracle reads the metadata's jwks_uri itself, then uses createRemoteJWKSet.
   */
  issuerBaseURL?: string;
  /** Unset: svcgate's default, HS256. */
  algorithms?: string[];
  issuer: string | string[];
  /** Unset: `audience: false` (no audience check, on purpose). */
  audience?: string | string[];
  clockTolerance?: number | string;
  maxTokenAge?: number | string;
  requiredClaims?: string[];
  profile?: 'rfc9068';
  maxHeaderBytes?: number;
  /** svcgate's token cache; off unless asked, so that every token is really verified. */
  cache?: boolean;
  /**
   * Several issuers, each with its own key, algorithms and audience (svcgate's `issuers`); the
   * top-level issuer, secret, jwks, algorithms and audience are then not used.
   */
  issuers?: IssuerEntrySpec[];
}

export type IssuerEntrySpec = Pick<ScenarioSpec, 'issuer' | 'secret' | 'jwks' | 'jwksUrl' | 'issuerBaseURL' | 'algorithms' | 'audience'>;

/** RFC 9068, section 2.2: the claims every JWT access token carries. */
const RFC9068_CLAIMS = ['iss', 'exp', 'aud', 'sub', 'client_id', 'iat', 'jti'];

/** An accepted token's payload, or a refusal as the caller can tell it apart: class, code and public description. */
export type Answer = { accepted: true; payload: unknown } | { accepted: false; refusal: string };

export interface Scenario {
  spec: ScenarioSpec;
  /** svcgate's answer, through the public handler. */
  actual(token: string): Promise<Answer>;
  /** What svcgate must answer: jose's, except for the documented refusals before and after it. */
  expected(token: string): Promise<Answer>;
}

/**
 * svcgate's Authorization header reader takes RFC 6750's b64token after `Bearer ` and any further
 * spaces: a token with any other character (`*`, `%`, a space inside, `=` before the end...) is
 * refused before it is parsed.
 */
const BEARER_B64TOKEN = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/;

export function makeScenario(spec: ScenarioSpec): Scenario {
  const handler = svcgateHandler(spec);
  const maxHeaderBytes = spec.maxHeaderBytes ?? 8192;
  const expRequiredByDefault = spec.requiredClaims === undefined && spec.profile === undefined;
  // An entry's fields replace the top level's, also when absent (no audience check, the default algorithm).
  const entries = (spec.issuers ?? [spec]).map((entry): ScenarioSpec => ({ ...spec, issuer: entry.issuer, secret: entry.secret, jwks: entry.jwks, jwksUrl: entry.jwksUrl, issuerBaseURL: entry.issuerBaseURL, algorithms: entry.algorithms, audience: entry.audience }));
  const oracles = entries.map((entry) => ({ issuers: [entry.issuer].flat(), key: oracleKey(entry), options: oracleOptions(entry) }));
  const [only] = oracles;
  // Documented: with several issuers, the unverified payload's iss chooses the entry (jose's decodeJwt reads it), and that entry verifies.
  const chooseOracle = (token: string): (typeof oracles)[number] | Answer => {
    if (oracles.length === 1 && only !== undefined) return only;
    let iss: unknown;
    try {
      ({ iss } = decodeJwt(token));
    } catch {
      return refused('JsonWebTokenError', 'ERR_JWT_INVALID', tokenErrorDescription({ code: 'ERR_JWT_INVALID' }));
    }
    const chosen = typeof iss === 'string' ? oracles.find(({ issuers }) => issuers.includes(iss as string)) : undefined;
    return chosen ?? refused('JsonWebTokenError', 'ERR_JWT_CLAIM_VALIDATION_FAILED', tokenErrorDescription({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'iss', claimReason: 'check_failed' }));
  };

  const expected = async (token: string): Promise<Answer> => {
    // Documented refusals before jose: the header is bounded in length, then read as `Bearer <b64token>`.
    const authorization = `Bearer ${token}`;
    const read = BEARER_B64TOKEN.exec(authorization)?.[1];
    if (authorization.length > maxHeaderBytes || read === undefined) return refused('SecurityError', 'ERR_SVCGATE_BEARER_FORMAT');
    const oracle = chooseOracle(read);
    if ('accepted' in oracle) return oracle;
    const { key, options } = oracle;
    let payload: unknown;
    try {
      ({ payload } = typeof key === 'function' ? await jwtVerify(read, key, options) : await jwtVerify(read, key, options));
    } catch (error) {
      const { code, claim, reason } = error as { code?: unknown; claim?: unknown; reason?: unknown };
      // svcgate keeps jose's codes (ERR_JWS_*, ERR_JWT_*, ERR_JOSE_*, ERR_JWKS_*); a TypeError (a key that does not fit) is ERR_JWT_INVALID.
      const stable = typeof code === 'string' && code.startsWith('ERR_J') ? code : 'ERR_JWT_INVALID';
      return refused('JsonWebTokenError', stable, tokenErrorDescription({ code: stable, claim, claimReason: reason, expRequiredByDefault }));
    }
    // Documented refusal after jose: claims nested deeper than 64 levels (MAX_CLAIM_DEPTH), which would exhaust the stack wherever they are walked next.
    if (nestingDepth(payload) > 64) return refused('JsonWebTokenError', 'ERR_JWT_INVALID', tokenErrorDescription({ code: 'ERR_JWT_INVALID' }));
    // Documented refusal after jose: a token bound to a DPoP key (cnf.jkt) is not a Bearer token (RFC 9449, section 7.1).
    if (boundToDpopKey(payload)) return refused('JsonWebTokenError', 'ERR_SVCGATE_DPOP_BINDING');
    return { accepted: true, payload };
  };

  const actual = async (token: string): Promise<Answer> => {
    try {
      return { accepted: true, payload: await handler(`Bearer ${token}`) };
    } catch (error) {
      if (error instanceof JsonWebTokenError) return refused('JsonWebTokenError', error.code, error.code.startsWith('ERR_SVCGATE') ? undefined : error.description);
      if (error instanceof SecurityError) return refused('SecurityError', error.code);
      // Anything else is a crash, never a documented answer.
      return refused('crash', String(error instanceof Error ? `${error.name}: ${error.message}` : error));
    }
  };

  return { spec, actual, expected };
}

/** Levels of nesting (the payload object is 1), without recursion: a payload may nest deeper than the stack. */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const open: [unknown, number][] = [[value, 1]];
  while (open.length > 0) {
    const [next, depth] = open.pop()!;
    if (typeof next !== 'object' || next === null) continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(next)) open.push([child, depth + 1]);
  }
  return deepest;
}

function refused(kind: string, code: string, description?: string): Answer {
  return { accepted: false, refusal: description === undefined ? `${kind} ${code}` : `${kind} ${code} (${description})` };
}

function boundToDpopKey(payload: unknown): boolean {
  const cnf = Object.hasOwn(payload as object, 'cnf') ? (payload as { cnf: unknown }).cnf : undefined;
  return typeof cnf === 'object' && cnf !== null && Object.hasOwn(cnf, 'jkt') && (cnf as { jkt: unknown }).jkt !== undefined;
}

export function sameAnswer(a: Answer, b: Answer): boolean {
  if (a.accepted || b.accepted) return a.accepted && b.accepted && sameJson(a.payload, b.payload);
  return a.refusal === b.refusal;
}

/**
 * Deep equality of parsed JSON (own keys in any order, -0 apart from 0, the same prototypes),
 * without recursion: a payload may nest deeper than the stack (util.isDeepStrictEqual overflows
 * at about 2,000 levels).
 */
function sameJson(first: unknown, second: unknown): boolean {
  const pending: [unknown, unknown][] = [[first, second]];
  while (pending.length > 0) {
    const [a, b] = pending.pop()!;
    if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
      if (!Object.is(a, b)) return false;
      continue;
    }
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b) || Array.isArray(a) !== Array.isArray(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(b, key)) return false;
      pending.push([(a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]]);
    }
  }
  return true;
}

export function describeAnswer(answer: Answer): string {
  if (!answer.accepted) return `refused: ${answer.refusal}`;
  let text: string;
  try {
    text = JSON.stringify(answer.payload) ?? String(answer.payload);
  } catch {
    text = '(a payload too deep to print)';
  }
  return `accepted ${text.length > 300 ? `${text.slice(0, 300)}...` : text}`;
}

function issuerFields(entry: IssuerEntrySpec): Record<string, unknown> {
  return {
    issuer: entry.issuer,
    ...(entry.secret === undefined ? {} : { secret: entry.secret }),
    ...(entry.jwks === undefined ? {} : { jwks: entry.jwks }),
    ...(entry.jwksUrl === undefined ? {} : { jwks: entry.jwksUrl }),
    ...(entry.issuerBaseURL === undefined ? {} : { issuerBaseURL: entry.issuerBaseURL }),
    ...(entry.algorithms === undefined ? {} : { algorithms: entry.algorithms }),
    audience: entry.audience ?? false,
  };
}

function svcgateHandler(spec: ScenarioSpec): BearerJwtHandler {
  return bearerJwt({
    ...(spec.issuers === undefined ? issuerFields(spec) : { issuers: spec.issuers.map(issuerFields) }),
    ...(spec.clockTolerance === undefined ? {} : { clockTolerance: spec.clockTolerance }),
    ...(spec.maxTokenAge === undefined ? {} : { maxTokenAge: spec.maxTokenAge }),
    ...(spec.requiredClaims === undefined ? {} : { requiredClaims: spec.requiredClaims }),
    ...(spec.profile === undefined ? {} : { profile: spec.profile }),
    ...(spec.maxHeaderBytes === undefined ? {} : { maxHeaderBytes: spec.maxHeaderBytes }),
    cache: spec.cache === true ? { size: 10_000, ttlSeconds: 300 } : false,
  });
}

function oracleKey(spec: ScenarioSpec): Uint8Array | KeyObject | JWTVerifyGetKey {
  if (spec.jwks !== undefined) return createLocalJWKSet(structuredClone(spec.jwks) as unknown as JSONWebKeySet);
  if (spec.jwksUrl !== undefined) return createRemoteJWKSet(new URL(spec.jwksUrl));
  if (spec.issuerBaseURL !== undefined) return discoveredRemoteSet(spec.issuerBaseURL);
  if (typeof spec.secret === 'string') return new TextEncoder().encode(spec.secret);
  if (spec.secret === undefined) throw new Error(`scenario ${spec.name} has no key`);
  return spec.secret;
}

/** OpenID Connect discovery as the oracle's own few lines: the metadata's jwks_uri, read once, then jose's remote set. */
function discoveredRemoteSet(issuerBaseURL: string): JWTVerifyGetKey {
  let remote: Promise<JWTVerifyGetKey> | undefined;
  return async (header, token) => {
    remote ??= fetch(`${issuerBaseURL.replace(/\/$/, '')}/.well-known/openid-configuration`)
      .then((response) => response.json())
      .then((metadata) => createRemoteJWKSet(new URL((metadata as { jwks_uri: string }).jwks_uri)));
    return (await remote)(header, token);
  };
}

/** The jwtVerify options svcgate documents for its configuration (docs/openapi-apis.md, the bearerJwt options). */
function oracleOptions(spec: ScenarioSpec): JWTVerifyOptions {
  const requiredClaims = spec.profile === 'rfc9068' ? [...new Set([...RFC9068_CLAIMS, ...(spec.requiredClaims ?? [])])] : spec.requiredClaims ?? ['exp'];
  return {
    issuer: spec.issuer,
    algorithms: spec.algorithms ?? ['HS256'],
    clockTolerance: spec.clockTolerance ?? 5,
    requiredClaims,
    ...(spec.audience === undefined ? {} : { audience: spec.audience }),
    ...(spec.maxTokenAge === undefined ? {} : { maxTokenAge: spec.maxTokenAge }),
    ...(spec.profile === 'rfc9068' ? { typ: 'at+jwt' } : {}),
  };
}
