import { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { ConfigError } from '../policy/compile/config-error';
import { parseWith } from '../policy/compile/parse-with';
import { KNOWN_ALGORITHMS } from './keys/algorithms';
import { claimsCheck } from './jws/claim-checks';
import { durationSeconds } from './jws/duration-seconds';
import { issuerAudience, reportSecretsWithoutAudience, type AudienceSetting, type KeyOrigin } from './audience-requirement';
import type { IssuerVerifier } from './keys/choose-issuer';
import type { DpopSettings } from './dpop/dpop-options';
import { dpopOptionsSchema } from './dpop/dpop-options-schema';
import { fixedKeys, type KeySetTimings, type KeySource } from './keys/key-set';
import { keySetConfigFields } from './keys/key-set-fields';
import { readKey, type LocalJwkSet } from './keys/read-key';
import { isRemote, readIssuer, readKeySetTimings, readRemoteKeySource } from './keys/remote-key-source';
import { profileChecks } from './rfc9068-profile';
import type { SchemaMatches } from '../policy/compile/schema-matches';
import type { BearerJwtCacheOptions, BearerJwtConfig, BearerJwtIssuerOptions } from './bearer-jwt-options';

const FILE = '<bearerJwt config>';

const algorithmList = z.array(z.string()).min(1, { error: 'list at least one algorithm' });
const duration = z.union([z.number().nonnegative(), z.string().min(1)]);
const issuerField = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)], { error: 'issuer must be a string or a non-empty list of strings' });
const secretField = z
  // z.custom rather than z.instanceof, whose type would refuse a Buffer over an ArrayBufferLike.
  .union([z.string(), z.custom<Uint8Array>((value) => value instanceof Uint8Array), z.custom<KeyObject>((value) => value instanceof KeyObject)], {
    error: 'secret must be a string, a Buffer or a KeyObject',
  });
const jwksField = z.union([z.url(), z.instanceof(URL), z.object({ keys: z.array(z.record(z.string(), z.unknown())) })], { error: 'jwks must be a URL or a JWK set { keys: [...] }' });
/**
 * A blank audience (' ', from an unset variable padded in a template) is no API's identifier: it
 * is refused rather than trimmed, as trimming ' api ' would change what a token must carry.
 */
const audienceValue = z.string().refine((value) => value.trim() !== '', { error: "an audience must not be empty or blank: give the API's identifier, the aud value of its tokens" });
/** `false`: no audience check, on purpose (see audience-requirement.ts). */
const audienceField = z.union([audienceValue, z.array(audienceValue).min(1), z.literal(false)], {
  error: 'audience must be a string that is not empty or blank, a non-empty list of such strings, or false (no audience check, on purpose)',
});
/** RFC 9068 and express-oauth2-jwt-bearer require exp; a configured requiredClaims replaces this list. */
const DEFAULT_REQUIRED_CLAIMS: readonly string[] = ['exp'];

/** One entry of `issuers`: an issuer with its own key (or key set) and, optionally, algorithms and audience. */
const issuerEntrySchema = z
  .object({
    issuer: issuerField.optional(),
    secret: secretField.optional(),
    jwks: jwksField.optional(),
    issuerBaseURL: keySetConfigFields.issuerBaseURL,
    algorithms: algorithmList.optional(),
    audience: audienceField.optional(),
  })
  .strict();

const cacheSchema = z.object({ size: z.number().int().nonnegative().default(10_000), ttlSeconds: z.number().positive().default(300) }).strict();

const configSchema = z
  .object({
    issuer: issuerField.optional(),
    secret: secretField.optional(),
    algoritms: algorithmList.optional(),
    algorithms: algorithmList.optional(),
    audience: audienceField.optional(),
    clockTolerance: duration.default(5),
    maxTokenAge: duration.optional(),
    requiredClaims: z.array(z.string().min(1)).optional(),
    jwks: jwksField.optional(),
    /** RFC 9068 JWT access tokens: header typ at+jwt and the profile's claims; needs audience. */
    profile: z.literal('rfc9068', { error: "profile must be 'rfc9068'" }).optional(),
    /** Several issuers, each verified only with its own key; instead of issuer, secret, jwks and issuerBaseURL. */
    issuers: z.array(issuerEntrySchema).min(1, { error: 'list at least one issuer' }).optional(),
    /** Longer Authorization headers are refused before any parsing. */
    maxHeaderBytes: z.number().int().positive().default(8192),
    /** RFC 9449 DPoP: `true` or options; see dpop-options.ts. */
    dpop: dpopOptionsSchema,
    /** Key-set timings, issuerBaseURL (discovery) and strict (warnings are errors: the start-up check, a secret without audience); see key-set.ts. */
    ...keySetConfigFields,
    /** Verified tokens remembered by their exact text; `false` turns the cache off. */
    cache: z.union([z.literal(false), cacheSchema]).default({ size: 10_000, ttlSeconds: 300 }),
  })
  .strict();

// The documented interfaces and the schemas must accept the same fields (see schema-matches.ts).
true satisfies SchemaMatches<typeof configSchema, BearerJwtConfig>;
true satisfies SchemaMatches<typeof issuerEntrySchema, BearerJwtIssuerOptions>;
true satisfies SchemaMatches<typeof cacheSchema, BearerJwtCacheOptions>;

/** The fields an issuer's verification is read from: the top level, or an entry of `issuers`. */
type IssuerFields = z.output<typeof issuerEntrySchema>;

export interface VerifierSettings {
  /** One entry per accepted issuer (one without `issuers`); a token is verified by the one its iss names. */
  issuers: IssuerVerifier[];
  maxHeaderBytes: number;
  /** undefined: DPoP is off. */
  dpop: DpopSettings | undefined;
  /** size 0: no cache. maxTokenAgeSeconds: a bound on cached entries when maxTokenAge bounds the age. */
  cache: { size: number; ttlSeconds: number; maxTokenAgeSeconds: number | undefined };
  /**
   * `strict` as configured. What is left of it after reading: the start-up check of a fetched key
   * set fails ready() rather than warning (a secret without audience is refused while reading, by
   * readBearerJwtConfig).
   */
  strict: boolean;
  /** exp is required by the default requiredClaims, not by the configuration: a token without it is told how to opt out. */
  expRequiredByDefault: boolean;
}

/** Validates the configuration and imports the keys once, at creation. */
export function readBearerJwtConfig(input: unknown): VerifierSettings {
  const config = parseWith(configSchema, input, FILE, [], 'see the bearerJwt options in docs/openapi-apis.md');
  // Not configured: the default, HS256, or with issuerBaseURL the metadata's.
  const algorithms = readAlgorithms(config.algoritms, config.algorithms);
  const topLevel: IssuerFields = { issuer: config.issuer, secret: config.secret, jwks: config.jwks, issuerBaseURL: config.issuerBaseURL, algorithms: undefined, audience: undefined };
  const entries: IssuerEntry[] = config.issuers === undefined ? [{ fields: topLevel, at: '$', issuer: readIssuer(config.issuer, config.issuerBaseURL, '$') }] : issuerEntries(config);
  const maxTokenAge = config.maxTokenAge === undefined ? undefined : readMaxTokenAge(config.maxTokenAge);
  const shared: Omit<IssuerVerifier['options'], 'issuer'> = {
    clockToleranceSeconds: readDuration(config.clockTolerance, '$.clockTolerance'),
    ...(maxTokenAge === undefined ? {} : { maxTokenAge }),
    ...profileChecks(config.profile, config.requiredClaims ?? DEFAULT_REQUIRED_CLAIMS),
  };
  const defaults: IssuerDefaults = {
    algorithms,
    audience: config.audience,
    profile: config.profile,
    timings: readKeySetTimings(config, entries.some(({ fields }) => isRemote(fields))),
    shared,
  };
  const read = entries.map((entry) => readIssuerVerifier(entry, defaults));
  reportSecretsWithoutAudience(read.flatMap(({ secretWithoutAudience }) => secretWithoutAudience ?? []), config.strict);
  const issuers = read.map(({ verifier }) => verifier);
  const cache = config.cache === false ? { size: 0, ttlSeconds: 0, maxTokenAgeSeconds: undefined } : { ...config.cache, maxTokenAgeSeconds: maxTokenAge?.checked === true ? maxTokenAge.seconds : undefined };
  const expRequiredByDefault = config.requiredClaims === undefined && config.profile === undefined;
  return { issuers, maxHeaderBytes: config.maxHeaderBytes, cache, dpop: config.dpop, strict: config.strict, expRequiredByDefault };
}

/** What the top level gives every issuer: its checks, and the algorithms and audience an entry may override. */
interface IssuerDefaults {
  algorithms: string[] | undefined;
  audience: AudienceSetting | undefined;
  profile: 'rfc9068' | undefined;
  timings: KeySetTimings;
  shared: Omit<IssuerVerifier['options'], 'issuer'>;
}

/** Where an issuer's fields are (`$`, or `$.issuers[i]`), and the issuer they accept. */
interface IssuerEntry {
  fields: IssuerFields;
  at: string;
  issuer: string | string[];
}

/** The entries of `issuers`, which replace the top-level issuer and key; each issuer in one entry only. */
function issuerEntries(config: z.output<typeof configSchema>): IssuerEntry[] {
  const mixed = (['issuer', 'secret', 'jwks', 'issuerBaseURL'] as const).find((field) => config[field] !== undefined);
  if (mixed !== undefined) {
    throw new ConfigError(FILE, `$.${mixed}`, `${mixed} is given with issuers`, `move ${mixed} into the entries of issuers (each entry has its issuer and its key), or remove issuers`);
  }
  const seen = new Set<string>();
  return (config.issuers ?? []).map((fields, index) => {
    const at = `$.issuers[${index}]`;
    const issuer = readIssuer(fields.issuer, fields.issuerBaseURL, at);
    for (const name of [issuer].flat()) {
      if (seen.has(name)) throw new ConfigError(FILE, `${at}.issuer`, `the issuer ${JSON.stringify(name)} is in two entries`, 'give each issuer once: a token must name exactly one entry');
      seen.add(name);
    }
    return { fields, at, issuer };
  });
}

/** One issuer's key source and checks; `secretWithoutAudience` is its path when a secret verifies it with no audience said. */
function readIssuerVerifier({ fields, at, issuer }: IssuerEntry, defaults: IssuerDefaults): { verifier: IssuerVerifier; secretWithoutAudience?: string } {
  const algorithms = fields.algorithms === undefined ? defaults.algorithms : checkAlgorithmNames(fields.algorithms, `${at}.algorithms`);
  const { keys, origin } = readIssuerKeys(fields, issuer, algorithms, defaults.timings, at);
  const configured = fields.audience ?? defaults.audience;
  if (defaults.profile === 'rfc9068' && (configured === undefined || configured === false)) {
    throw new ConfigError(FILE, `${at}.audience`, "profile 'rfc9068' needs the audience check (RFC 9068, section 4)", "set audience to this API's identifier, the aud value of the tokens issued for it");
  }
  const audience = issuerAudience(configured, origin, at);
  const options: IssuerVerifier['options'] = { ...defaults.shared, issuer, ...(audience === undefined ? {} : { audience }) };
  const verifier: IssuerVerifier = { keys, options, checkClaims: claimsCheck(options) };
  return origin === 'secret' && configured === undefined ? { verifier, secretWithoutAudience: at } : { verifier };
}

/** The issuer's keys, and where they come from: a `secret` is a shared secret unless it imported as a public key (PEM or KeyObject). */
function readIssuerKeys(fields: IssuerFields, issuer: string | string[], algorithms: string[] | undefined, timings: KeySetTimings, at: string): { keys: KeySource; origin: KeyOrigin } {
  const remote = readRemoteKeySource(fields, [issuer].flat(), algorithms, timings, at);
  if (remote !== undefined) return { keys: remote, origin: fields.issuerBaseURL === undefined ? 'jwks' : 'issuerBaseURL' };
  const fixedAlgorithms = algorithms ?? ['HS256'];
  const key = readKey(fields.secret, fields.jwks as LocalJwkSet | undefined, fixedAlgorithms, at);
  const origin: KeyOrigin = fields.jwks !== undefined ? 'jwks' : key instanceof KeyObject && key.type === 'public' ? 'publicKey' : 'secret';
  return { keys: fixedKeys(key, fixedAlgorithms), origin };
}

/** Seconds, from a number or a duration as jose writes them ('5s', '2 minutes'); a misspelt one is refused here rather than failing every token. */
function readDuration(value: number | string, at: string): number {
  if (typeof value === 'number') return value;
  const seconds = durationSeconds(value);
  if (seconds === undefined) throw new ConfigError(FILE, at, `${JSON.stringify(value.slice(0, 100))} is not a duration`, "give seconds as a number, or a duration such as '30s', '5 minutes' or '1h'");
  // As for numbers: a negative tolerance or age ('-5s', '1h ago') would make the cache serve tokens the checks refuse.
  if (seconds < 0) throw new ConfigError(FILE, at, `${JSON.stringify(value.slice(0, 100))} is a negative duration`, "give a duration of zero or more, such as '5s'");
  return seconds;
}

/** As jose reads it: the number 0 only requires iat, any duration string bounds the age (see ClaimCheckOptions). */
function readMaxTokenAge(value: number | string): { seconds: number; checked: boolean } {
  const seconds = readDuration(value, '$.maxTokenAge');
  return { seconds, checked: typeof value === 'string' || value !== 0 };
}

/** Both spellings are accepted (the original library's `algoritms` too), but not in disagreement. */
function readAlgorithms(misspelled: string[] | undefined, spelled: string[] | undefined): string[] | undefined {
  if (misspelled && spelled && JSON.stringify(misspelled) !== JSON.stringify(spelled)) {
    throw new ConfigError(FILE, '$.algorithms', 'algoritms and algorithms are both given, with different values', 'give only one of them');
  }
  const algorithms = spelled ?? misspelled;
  return algorithms === undefined ? undefined : checkAlgorithmNames(algorithms, '$.algorithms');
}

function checkAlgorithmNames(algorithms: string[], at: string): string[] {
  algorithms.forEach((algorithm, index) => {
    if (algorithm.toLowerCase() === 'none') throw new ConfigError(FILE, `${at}[${index}]`, 'the algorithm "none" accepts unsigned tokens', 'remove it; svcgate never accepts unsigned tokens');
    if (!KNOWN_ALGORITHMS.includes(algorithm)) throw new ConfigError(FILE, `${at}[${index}]`, `unknown algorithm ${JSON.stringify(algorithm)}`, `use some of: ${KNOWN_ALGORITHMS.join(', ')}`);
  });
  return algorithms;
}
