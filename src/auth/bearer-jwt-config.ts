import { createPublicKey, KeyObject } from 'node:crypto';
import { createLocalJWKSet, createRemoteJWKSet, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import { z } from 'zod';
import { ConfigError } from '../policy/config-error';
import { parseWith } from '../policy/parse-with';
import { detectKeyMaterial, type KeyMaterial } from './detect-key-material';

const FILE = '<bearerJwt config>';
const HMAC = ['HS256', 'HS384', 'HS512'];
const ASYMMETRIC: Record<string, string[]> = {
  rsa: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'],
  'rsa-pss': ['PS256', 'PS384', 'PS512'],
  ec: ['ES256', 'ES384', 'ES512'],
  ed25519: ['EdDSA'],
  ed448: ['EdDSA'],
};
const KNOWN = [...HMAC, ...new Set(Object.values(ASYMMETRIC).flat())];
/** RFC 8725, section 3.5: an HMAC key should be at least as long as the hash output. */
const MIN_SECRET_BYTES = 32;

const algorithmList = z.array(z.string()).min(1, { error: 'list at least one algorithm' });
const duration = z.union([z.number().nonnegative(), z.string().min(1)]);

const configSchema = z
  .object({
    issuer: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)], { error: 'issuer must be a string or a non-empty list of strings' }),
    secret: z
      // z.custom rather than z.instanceof, whose type would refuse a Buffer over an ArrayBufferLike.
      .union([z.string(), z.custom<Uint8Array>((value) => value instanceof Uint8Array), z.custom<KeyObject>((value) => value instanceof KeyObject)], {
        error: 'secret must be a string, a Buffer or a KeyObject',
      })
      .optional(),
    algoritms: algorithmList.optional(),
    algorithms: algorithmList.optional(),
    audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    clockTolerance: duration.default(5),
    maxTokenAge: duration.optional(),
    requiredClaims: z.array(z.string().min(1)).optional(),
    jwks: z
      .union([z.url(), z.instanceof(URL), z.object({ keys: z.array(z.record(z.string(), z.unknown())) })], { error: 'jwks must be a URL or a JWK set { keys: [...] }' })
      .optional(),
    /** Longer Authorization headers are refused before any parsing. */
    maxHeaderBytes: z.number().int().positive().default(8192),
    /** Verified tokens remembered by their exact text; `false` turns the cache off. */
    cache: z
      .union([z.literal(false), z.object({ size: z.number().int().nonnegative().default(10_000), ttlSeconds: z.number().positive().default(300) }).strict()])
      .default({ size: 10_000, ttlSeconds: 300 }),
  })
  .strict();

export type BearerJwtConfig = z.input<typeof configSchema>;

export interface VerifierSettings {
  key: Uint8Array | KeyObject | JWTVerifyGetKey;
  options: JWTVerifyOptions & { algorithms: string[] };
  maxHeaderBytes: number;
  /** size 0: no cache. maxTokenAgeSeconds: a bound on cached entries when maxTokenAge is a number. */
  cache: { size: number; ttlSeconds: number; maxTokenAgeSeconds: number | undefined };
}

/** Validates the configuration and imports the key once, at creation. */
export function readBearerJwtConfig(input: unknown): VerifierSettings {
  const config = parseWith(configSchema, input, FILE, [], 'see the bearerJwt options in the README');
  const algorithms = readAlgorithms(config.algoritms, config.algorithms);
  const key = readKey(config.secret, config.jwks, algorithms);
  const options: VerifierSettings['options'] = {
    issuer: config.issuer,
    algorithms,
    clockTolerance: config.clockTolerance,
    ...(config.audience === undefined ? {} : { audience: config.audience }),
    ...(config.maxTokenAge === undefined ? {} : { maxTokenAge: config.maxTokenAge }),
    ...(config.requiredClaims === undefined ? {} : { requiredClaims: config.requiredClaims }),
  };
  // A maxTokenAge given as a jose duration string cannot be bounded here, so such tokens are not cached.
  const uncachedAge = typeof config.maxTokenAge === 'string';
  const cache = config.cache === false || uncachedAge ? { size: 0, ttlSeconds: 0, maxTokenAgeSeconds: undefined } : { ...config.cache, maxTokenAgeSeconds: config.maxTokenAge as number | undefined };
  return { key, options, maxHeaderBytes: config.maxHeaderBytes, cache };
}

/** Both spellings are accepted (the original library's `algoritms` too), but not in disagreement. */
function readAlgorithms(misspelled: string[] | undefined, spelled: string[] | undefined): string[] {
  if (misspelled && spelled && JSON.stringify(misspelled) !== JSON.stringify(spelled)) {
    throw new ConfigError(FILE, '$.algorithms', 'algoritms and algorithms are both given, with different values', 'give only one of them');
  }
  const algorithms = spelled ?? misspelled ?? ['HS256'];
  algorithms.forEach((algorithm, index) => {
    if (algorithm.toLowerCase() === 'none') throw new ConfigError(FILE, `$.algorithms[${index}]`, 'the algorithm "none" accepts unsigned tokens', 'remove it; svcgate never accepts unsigned tokens');
    if (!KNOWN.includes(algorithm)) throw new ConfigError(FILE, `$.algorithms[${index}]`, `unknown algorithm ${JSON.stringify(algorithm)}`, `use some of: ${KNOWN.join(', ')}`);
  });
  return algorithms;
}

function readKey(secret: string | Uint8Array | KeyObject | undefined, jwks: string | URL | { keys: Record<string, unknown>[] } | undefined, algorithms: string[]): VerifierSettings['key'] {
  if (secret !== undefined && jwks !== undefined) throw new ConfigError(FILE, '$', 'both secret and jwks are given', 'give secret for one key, or jwks for a key set');
  if (jwks !== undefined) {
    const hmac = hmacOf(algorithms);
    if (hmac.length > 0) throw new ConfigError(FILE, '$.algorithms', `${hmac.join(', ')} cannot be used with a JWK set`, 'list the asymmetric algorithms of the set, e.g. ["RS256"]');
    if (typeof jwks === 'string' || jwks instanceof URL) return createRemoteJWKSet(new URL(jwks));
    try {
      return createLocalJWKSet(jwks as unknown as Parameters<typeof createLocalJWKSet>[0]);
    } catch (error) {
      throw new ConfigError(FILE, '$.jwks', `invalid JWK set: ${(error as Error).message}`, 'give { keys: [ ...public JWKs ] }');
    }
  }
  if (secret === undefined) throw new ConfigError(FILE, '$.secret', 'no key is given', 'give secret (an HMAC secret or a public key) or jwks');
  const key = toKey(secret, algorithms);
  checkKeyFitsAlgorithms(key, algorithms);
  return key;
}

function toKey(secret: string | Uint8Array | KeyObject, algorithms: string[]): Uint8Array | KeyObject {
  if (secret instanceof KeyObject) return checkKeyObject(secret, algorithms);
  const material = detectKeyMaterial(secret);
  if (material !== undefined) return importKeyMaterial(material, algorithms);
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : new Uint8Array(secret);
  if (bytes.length === 0) throw new ConfigError(FILE, '$.secret', 'the secret is empty', 'use a random secret of at least 32 bytes');
  return bytes;
}

function checkKeyObject(key: KeyObject, algorithms: string[]): KeyObject {
  if (key.type === 'private') throw new ConfigError(FILE, '$.secret', 'secret is a private key', 'pass the public key (crypto.createPublicKey(privateKey))');
  // createSecretKey(readFileSync('pub.pem')) is the same mix-up as passing the file's bytes.
  const material = key.type === 'secret' ? detectKeyMaterial(key.export()) : undefined;
  const hmac = hmacOf(algorithms);
  if (material !== undefined && hmac.length > 0) throw keyAsHmacSecretError(material, hmac);
  return key;
}

/**
 * A key is never an HMAC secret, whether it comes as a string or a Buffer: with an HMAC algorithm,
 * whoever has the key (a public key, a certificate) could sign tokens. Without one, a PEM is
 * imported as the public key it names; DER and JWK are refused rather than guessed at, since
 * crypto.createPublicKey reads them when told the format.
 */
function importKeyMaterial(material: KeyMaterial, algorithms: string[]): KeyObject {
  const hmac = hmacOf(algorithms);
  if (hmac.length > 0) throw keyAsHmacSecretError(material, hmac);
  if (material.pem === undefined) {
    throw new ConfigError(FILE, '$.secret', `the secret holds ${material.found}, which is read only from PEM text`, 'pass the key as a KeyObject (crypto.createPublicKey(...)) or as PEM text; a JWK set goes in jwks');
  }
  try {
    return createPublicKey(material.pem);
  } catch (error) {
    throw new ConfigError(FILE, '$.secret', `the PEM text is not a public key (${(error as Error).message})`, 'pass a PEM "PUBLIC KEY" or certificate');
  }
}

function keyAsHmacSecretError(material: KeyMaterial, hmac: string[]): ConfigError {
  const fitting = ASYMMETRIC[material.keyType ?? ''] ?? ['RS256', 'ES256', 'EdDSA'];
  return new ConfigError(
    FILE,
    '$.secret',
    `the secret holds ${material.found}, which ${hmac.join(', ')} would use as an HMAC secret: anyone who has that key could sign tokens`,
    `to verify with the key, pass it as a KeyObject or PEM with algorithms set to one of ${fitting.join(', ')}; for HMAC, use a random secret of at least ${MIN_SECRET_BYTES} bytes (crypto.randomBytes(${MIN_SECRET_BYTES}))`,
  );
}

function hmacOf(algorithms: string[]): string[] {
  return algorithms.filter((algorithm) => HMAC.includes(algorithm));
}

/** The key decides which algorithms can be right: an HMAC secret never verifies RS256, and the reverse. */
function checkKeyFitsAlgorithms(key: Uint8Array | KeyObject, algorithms: string[]): void {
  const secret = key instanceof Uint8Array || key.type === 'secret';
  const fitting = secret ? HMAC : ASYMMETRIC[key.asymmetricKeyType ?? ''] ?? [];
  const misfits = algorithms.filter((algorithm) => !fitting.includes(algorithm));
  if (misfits.length > 0) {
    const kind = secret ? 'an HMAC secret' : `a ${key.asymmetricKeyType} public key`;
    throw new ConfigError(FILE, '$.algorithms', `${misfits.join(', ')} cannot be verified with ${kind}`, `use ${fitting.join(', ') || 'another key'}`);
  }
  const length = key instanceof Uint8Array ? key.length : key.type === 'secret' ? key.symmetricKeySize ?? 0 : Infinity;
  if (length < MIN_SECRET_BYTES) {
    process.emitWarning(`the HMAC secret has ${length} bytes; RFC 8725 asks for at least ${MIN_SECRET_BYTES}`, { code: 'SVCGATE_WEAK_SECRET' });
  }
}
