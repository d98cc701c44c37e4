import { createPrivateKey, createPublicKey, createSecretKey, KeyObject, X509Certificate } from 'node:crypto';
import { CompactSign, compactVerify } from 'jose';
import { ConfigError } from '../../policy/compile/config-error';
import { isPlainObject } from '../../policy/compile/documents/plain-object';
import { BundleError } from './bundle-error';
import { BUNDLE_LIMITS } from './bundle-limits';
import { checkFile, fileHash, FILE_HASHES } from './bundle-hash';
import { quoted, quotedJson } from '../../policy/compile/quoted-text';

/** The JWS algorithms OPA signs bundles with; RS256 is OPA's default. */
export const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'HS256', 'HS384', 'HS512'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** The `signing` option of writeBundle (the CLI's `--signing-key`, `--signing-alg`, ...). */
export interface BundleSigning {
  /** A PEM private key (PKCS#8, PKCS#1 or SEC1), or the HMAC secret for HS*. */
  key: string | Uint8Array | KeyObject;
  /** The JWS algorithm; it must fit the key. No default (OPA's `opa sign` default is RS256). */
  algorithm: SigningAlgorithm;
  /** Written as the JWS `kid` and the payload's `keyid`, as `opa sign --signing-key-id`... does. Default: none. */
  keyId?: string;
  /** Written as the payload's `scope`, which a verifier with a scope requires. Default: none. */
  scope?: string;
}

/** The `verification` option of bundleConsumer, and the argument of {@link verificationKey}. */
export interface BundleVerification {
  /** A PEM public key or certificate, or the HMAC secret for HS*. */
  key: string | Uint8Array | KeyObject;
  /** Default RS256, as OPA's. Only this algorithm is accepted. */
  algorithm?: SigningAlgorithm;
  /** When set, a signature that names another key (JWS `kid` or payload `keyid`) is refused. Default: none. */
  keyId?: string;
  /** The payload's `scope` must equal it (both empty by default), as OPA checks. */
  scope?: string;
  /**
   * A data.json or .manifest that is not byte for byte the signed file (as `opa build` writes them)
   * is compared in OPA's canonical form up to this many bytes, and refused beyond; default 16 MiB.
   * Raise it for bundles `opa build` writes with more data; svcgate's own match by their bytes.
   */
  maxCanonicalBytes?: number;
}

/** A verification configuration with its key imported once, at start-up: what {@link verificationKey} returns. */
export interface VerificationKey {
  /** The imported public key, or the HMAC secret. */
  key: KeyObject;
  /** The only algorithm accepted. */
  algorithm: SigningAlgorithm;
  /** The key id a signature must name, if any. */
  keyId: string | undefined;
  /** The payload's `scope` that is required (`''`: none). */
  scope: string;
  /** The most bytes compared in OPA's canonical form (see BundleVerification). */
  maxCanonicalBytes: number;
}

interface SignedFile {
  name: string;
  hash: string;
  algorithm: string;
}

/** Imports the verification key; a key that cannot be one for the algorithm is a ConfigError. */
export function verificationKey(verification: BundleVerification, file: string, at: string): VerificationKey {
  const algorithm = verification.algorithm ?? 'RS256';
  if (!SIGNING_ALGORITHMS.includes(algorithm)) throw new ConfigError(file, `${at}.algorithm`, `${String(algorithm)} is not a bundle signing algorithm`, `use one of ${SIGNING_ALGORITHMS.join(', ')}`);
  let key: KeyObject;
  try {
    key = algorithm.startsWith('HS') ? secretKey(verification.key) : publicKey(verification.key);
  } catch (error) {
    throw new ConfigError(file, `${at}.key`, `the key cannot verify ${algorithm} signatures: ${(error as Error).message}`, algorithm.startsWith('HS') ? 'give the shared secret' : 'give a PEM public key or certificate');
  }
  const maxCanonicalBytes = verification.maxCanonicalBytes ?? BUNDLE_LIMITS.maxCanonicalBytes;
  if (!Number.isSafeInteger(maxCanonicalBytes) || maxCanonicalBytes < 0) {
    throw new ConfigError(file, `${at}.maxCanonicalBytes`, `maxCanonicalBytes is ${String(maxCanonicalBytes)}`, `give a number of bytes, e.g. ${BUNDLE_LIMITS.maxCanonicalBytes} (the default)`);
  }
  return { key, algorithm, keyId: verification.keyId, scope: verification.scope ?? '', maxCanonicalBytes };
}

/** The contents of `.signatures.json` for `files` (every file of the bundle but that one). */
export async function signFiles(files: ReadonlyMap<string, Uint8Array>, signing: BundleSigning): Promise<string> {
  const key = signing.algorithm.startsWith('HS') ? secretKey(signing.key) : privateKey(signing.key);
  const listed: SignedFile[] = [];
  for (const [name, bytes] of files) listed.push({ name, hash: await fileHash(name, bytes, 'SHA-256'), algorithm: 'SHA-256' });
  const payload: Record<string, unknown> = { files: listed };
  if (signing.keyId !== undefined) payload.keyid = signing.keyId;
  if (signing.scope !== undefined) payload.scope = signing.scope;
  const header = signing.keyId === undefined ? { alg: signing.algorithm } : { alg: signing.algorithm, kid: signing.keyId };
  const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader(header).sign(key);
  return JSON.stringify({ signatures: [jws] }, null, 1);
}

/**
 * Checks `.signatures.json` as OPA does: exactly one JWS, signed with the configured key and
 * algorithm only, the configured scope, and a file list that names every other file of the
 * bundle, each with its hash, and nothing else.
 */
export async function verifyFiles(signatures: Uint8Array, files: ReadonlyMap<string, Uint8Array>, verification: VerificationKey): Promise<void> {
  const tokens = readSignatures(signatures);
  let payload: Uint8Array;
  let kid: unknown;
  try {
    ({ payload, protectedHeader: { kid } } = await compactVerify(tokens[0]!, verification.key, { algorithms: [verification.algorithm] }));
  } catch (error) {
    throw new BundleError('ERR_SVCGATE_BUNDLE_SIGNATURE', `the bundle signature does not verify with the configured ${verification.algorithm} key (${(error as Error).message})`);
  }
  const claims = readPayload(payload);
  const named = kid ?? claims.keyid;
  if (verification.keyId !== undefined && named !== undefined && named !== verification.keyId) {
    throw new BundleError('ERR_SVCGATE_BUNDLE_SIGNATURE', `the bundle is signed with the key ${quotedJson(named)}, not ${quoted(verification.keyId)}`);
  }
  if ((claims.scope ?? '') !== verification.scope) throw new BundleError('ERR_SVCGATE_BUNDLE_SIGNATURE', 'the bundle signature has another scope than the configured one');
  await checkFileList(claims.files, files, verification.maxCanonicalBytes);
}

function readSignatures(bytes: Uint8Array): string[] {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw new BundleError('ERR_SVCGATE_BUNDLE_SIGNATURE', '.signatures.json is not JSON');
  }
  const tokens = (value as { signatures?: unknown } | null)?.signatures;
  if (!Array.isArray(tokens) || tokens.length !== 1 || typeof tokens[0] !== 'string') {
    throw new BundleError('ERR_SVCGATE_BUNDLE_SIGNATURE', '.signatures.json must hold exactly one signature: { "signatures": ["<JWS>"] }');
  }
  return tokens as string[];
}

function readPayload(payload: Uint8Array): { files: unknown; keyid?: unknown; scope?: unknown } {
  try {
    const value = JSON.parse(Buffer.from(payload).toString('utf8')) as unknown;
    if (isPlainObject(value)) return value as { files: unknown };
  } catch {
    // Reported below: a signed payload that is not a JSON object is as bad as a forged one.
  }
  throw new BundleError('ERR_SVCGATE_BUNDLE_SIGNATURE', 'the bundle signature payload is not a JSON object');
}

/** Every file against the signed list: every name first (no digest is taken of a bundle whose list is wrong), then one digest per file, of its bytes first (see checkFile). */
async function checkFileList(listed: unknown, files: ReadonlyMap<string, Uint8Array>, maxCanonicalBytes: number): Promise<void> {
  if (!Array.isArray(listed)) throw new BundleError('ERR_SVCGATE_BUNDLE_SIGNATURE', 'the bundle signature lists no files');
  const unsigned = new Set(files.keys());
  const signed: SignedFile[] = [];
  for (const entry of listed as Partial<SignedFile>[]) {
    const name = typeof entry?.name === 'string' ? entry.name.replace(/^\/+/, '') : undefined;
    if (name === undefined || typeof entry.hash !== 'string' || typeof entry.algorithm !== 'string') throw new BundleError('ERR_SVCGATE_BUNDLE_SIGNATURE', 'the bundle signature lists a malformed file entry');
    if (!Object.hasOwn(FILE_HASHES, entry.algorithm)) throw new BundleError('ERR_SVCGATE_BUNDLE_SIGNATURE', `${quoted(name)} is hashed with ${quoted(entry.algorithm)}; svcgate accepts ${Object.keys(FILE_HASHES).join(', ')}`);
    if (!unsigned.delete(name)) throw new BundleError('ERR_SVCGATE_BUNDLE_SIGNATURE', `the signature lists ${quoted(name)}, which the bundle does not hold (or lists it twice)`);
    signed.push({ name, hash: entry.hash, algorithm: entry.algorithm });
  }
  if (unsigned.size > 0) throw new BundleError('ERR_SVCGATE_BUNDLE_SIGNATURE', `the bundle holds files its signature does not list: ${[...unsigned].map((name) => quoted(name)).join(', ')}`);
  for (const { name, hash, algorithm } of signed) {
    const bytes = files.get(name)!;
    const check = await checkFile(name, bytes, algorithm, hash, maxCanonicalBytes);
    if (check === 'too-large') {
      // Not "altered": `opa build` writes every data.json in another form than the one it signs.
      throw new BundleError(
        'ERR_SVCGATE_BUNDLE_SIGNATURE',
        `${quoted(name)} is not byte for byte the signed file, and at ${bytes.byteLength} bytes it is over the ${maxCanonicalBytes} bytes compared in OPA's canonical form (verification.maxCanonicalBytes), so it was not read further; a bundle \`opa build\` wrote with this much data needs a larger maxCanonicalBytes`,
      );
    }
    if (check === 'differs') throw new BundleError('ERR_SVCGATE_BUNDLE_SIGNATURE', `${quoted(name)} does not match its signed hash: the bundle was altered`);
  }
}

function secretKey(key: string | Uint8Array | KeyObject): KeyObject {
  if (key instanceof KeyObject) {
    if (key.type !== 'secret') throw new Error('an HMAC algorithm needs a secret key');
    return key;
  }
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key);
  // RFC 7518, 3.2: an HMAC key as long as the hash output at least.
  if (bytes.length < 32) throw new Error('the secret is shorter than 32 bytes');
  return createSecretKey(bytes);
}

function publicKey(key: string | Uint8Array | KeyObject): KeyObject {
  if (key instanceof KeyObject) return key.type === 'private' ? createPublicKey(key) : key;
  const pem = typeof key === 'string' ? key : Buffer.from(key).toString('utf8');
  return pem.includes('-----BEGIN CERTIFICATE-----') ? new X509Certificate(pem).publicKey : createPublicKey(pem);
}

function privateKey(key: string | Uint8Array | KeyObject): KeyObject {
  if (key instanceof KeyObject) return key;
  return createPrivateKey(typeof key === 'string' ? key : Buffer.from(key));
}
