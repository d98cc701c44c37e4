import { promisify } from 'node:util';
import { constants, createHmac, generateKeyPair, sign, type JsonWebKey, type KeyObject } from 'node:crypto';

/**
 * The keys of the differential test, made once per run, and a signer on node:crypto alone (not
 * jose, not svcgate), so the tokens are whatever bytes a forger could send.
 */

/** Every JWS algorithm jose 5.10 verifies. */
export const ALL_ALGORITHMS = ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'ES256K', 'EdDSA', 'Ed25519'] as const;
export const ASYMMETRIC = ALL_ALGORITHMS.filter((algorithm) => !algorithm.startsWith('HS'));

export interface KeyPair {
  name: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The algorithms svcgate's configuration accepts for this public key. */
  algorithms: string[];
}

/** 40 ASCII characters: above RFC 8725's 32 bytes, and no PEM, DER or JWK that svcgate would refuse as a secret. */
export const HMAC_SECRET = 'differential-test-hmac-secret-0123456789';
export const OTHER_HMAC_SECRET = 'another-hmac-secret-of-forty-characters!';

const RSA = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const PSS = ['PS256', 'PS384', 'PS512'];

const generate = promisify(generateKeyPair) as unknown as (type: string, options?: object) => Promise<{ privateKey: KeyObject; publicKey: KeyObject }>;

async function pair(name: string, algorithms: string[], type: string, options?: object): Promise<KeyPair> {
  return { name, algorithms, ...(await generate(type, options)) };
}

function pssParameters(hash: string, saltLength: number): object {
  return { modulusLength: 2048, hashAlgorithm: hash, mgf1HashAlgorithm: hash, saltLength };
}

/** Generated at each run, on libuv's threads (about two seconds of CPU, mostly the RSA keys). */
export async function makeKeyPairs(): Promise<Record<string, KeyPair>> {
  const pairs = await Promise.all([
    pair('rsa2048', RSA, 'rsa', { modulusLength: 2048 }),
    pair('rsa2048-other', RSA, 'rsa', { modulusLength: 2048 }),
    // jose refuses RSA keys under 2048 bits; svcgate's configuration takes them.
    pair('rsa1024', RSA, 'rsa', { modulusLength: 1024 }),
    pair('rsa-pss', PSS, 'rsa-pss', { modulusLength: 2048 }),
    // Parameters that fit PS256 only (jose checks hash, MGF1 hash and salt length against the alg).
    pair('rsa-pss-sha256', PSS, 'rsa-pss', pssParameters('sha256', 32)),
    // A minimum salt of 64 bytes: more than PS256's 32, so jose refuses PS256 with this key.
    pair('rsa-pss-salt64', PSS, 'rsa-pss', pssParameters('sha512', 64)),
    pair('p256', ['ES256'], 'ec', { namedCurve: 'P-256' }),
    pair('p256-other', ['ES256'], 'ec', { namedCurve: 'P-256' }),
    pair('p384', ['ES384'], 'ec', { namedCurve: 'P-384' }),
    pair('p521', ['ES512'], 'ec', { namedCurve: 'P-521' }),
    pair('secp256k1', ['ES256K'], 'ec', { namedCurve: 'secp256k1' }),
    pair('ed25519', ['EdDSA', 'Ed25519'], 'ed25519'),
    pair('ed25519-other', ['EdDSA', 'Ed25519'], 'ed25519'),
    pair('ed448', ['EdDSA'], 'ed448'),
  ]);
  return Object.fromEntries(pairs.map((keyPair) => [keyPair.name, keyPair]));
}

/** The public key as a JWK, with extra members (kid, alg, use, key_ops...). */
export function publicJwk(keyPair: KeyPair, extra: Record<string, unknown> = {}): JsonWebKey & Record<string, unknown> {
  return { ...keyPair.publicKey.export({ format: 'jwk' }), ...extra };
}

/** The key that signs, by kind: an HMAC secret (bytes) or a private key. */
export type SigningMaterial = Buffer | KeyObject;

const DIGEST: Readonly<Record<string, string>> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };

/**
 * Signs `input` as `algorithm` with whatever key it is given, also a key that does not fit (ES256
 * with a P-384 key, HS256 with a public key's PEM bytes): that is how a forger makes misfit pairs.
 * undefined when node:crypto cannot sign that pair at all.
 */
export function signAs(algorithm: string, key: SigningMaterial, input: string): Buffer | undefined {
  // As jose reads the signing input: the token's text as UTF-8.
  const data = Buffer.from(input, 'utf8');
  const digest = DIGEST[algorithm.slice(-3)] ?? 'sha256';
  try {
    if (Buffer.isBuffer(key)) return algorithm.startsWith('HS') ? createHmac(digest, key).update(data).digest() : undefined;
    if (algorithm.startsWith('HS')) return createHmac(digest, key.type === 'secret' ? key.export() : Buffer.from(key.export({ format: 'pem', type: 'spki' }) as string)).update(data).digest();
    if (algorithm.startsWith('RS')) return sign(digest, data, key);
    if (algorithm.startsWith('PS')) return sign(digest, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
    if (algorithm.startsWith('ES')) return sign(digest, data, { key, dsaEncoding: 'ieee-p1363' });
    if (algorithm === 'EdDSA' || algorithm === 'Ed25519') return sign(null, data, key);
  } catch {
    return undefined;
  }
  return undefined;
}
