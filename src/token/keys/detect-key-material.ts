import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';

/** A key, in one of its usual encodings, found where an HMAC secret was expected. */
export interface KeyMaterial {
  /** What was found, for the error message: `a PEM "PUBLIC KEY" block`, `a JWK (kty "EC")`, ... */
  found: string;
  /** The asymmetric key type ('rsa', 'ec', 'ed25519', ...) when node:crypto can tell it. */
  keyType: string | undefined;
  /** The text, when the key is PEM: the one encoding svcgate imports from a string or Buffer. */
  pem: string | undefined;
}

// RFC 7468: the label is printable text without hyphens. The block may follow other text
// (openssl's "Bag Attributes", whitespace, a byte-order mark), so it is searched for, not anchored.
const PEM_BEGIN = /-----BEGIN ([^\r\n-]*)-----/;
const BASE64_TEXT = /^[\sA-Za-z0-9+/=_-]+$/;
/** Every DER key and certificate is an ASN.1 SEQUENCE; other bytes are not worth a parse. */
const DER_SEQUENCE = 0x30;

// Private forms come before public ones: OpenSSL reads a private key's DER as a PKCS#1 public key too.
const DER_READERS: readonly [string, (der: Buffer) => KeyObject][] = [
  ['public key (SPKI)', (der) => createPublicKey({ key: der, format: 'der', type: 'spki' })],
  ['private key (PKCS#8)', (der) => createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })],
  ['private key (PKCS#1)', (der) => createPrivateKey({ key: der, format: 'der', type: 'pkcs1' })],
  ['private key (SEC1)', (der) => createPrivateKey({ key: der, format: 'der', type: 'sec1' })],
  ['public key (PKCS#1)', (der) => createPublicKey({ key: der, format: 'der', type: 'pkcs1' })],
  ['X.509 certificate', (der) => new X509Certificate(der).publicKey],
];

/**
 * Tells whether an HMAC secret is in fact a key: PEM, DER (raw or base64) or a JWK / JWK set.
 * A public key used as an HMAC secret lets anyone who has the public key sign tokens (the
 * `bearerJwt({ secret: readFileSync('pub.pem') })` mix-up), so such a secret is never used as one.
 */
export function detectKeyMaterial(secret: string | Uint8Array): KeyMaterial | undefined {
  const text = typeof secret === 'string' ? secret : Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength).toString('utf8');
  return findPem(text) ?? findJwk(text) ?? findDer(secret, text);
}

function findPem(text: string): KeyMaterial | undefined {
  const label = PEM_BEGIN.exec(text)?.[1];
  if (label === undefined) return undefined;
  return { found: `a PEM "${label}" block`, keyType: keyTypeOf(() => createPublicKey(text)), pem: text };
}

function findJwk(text: string): KeyMaterial | undefined {
  // trim() also drops a byte-order mark, which JSON.parse would reject.
  const json = text.trim();
  if (!json.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (Object.hasOwn(value, 'keys')) return { found: 'a JWK set (JSON with "keys")', keyType: undefined, pem: undefined };
  if (!Object.hasOwn(value, 'kty')) return undefined;
  const jwk = value as { kty: unknown };
  return { found: `a JWK (JSON with kty ${JSON.stringify(jwk.kty)})`, keyType: keyTypeOf(() => createPublicKey({ key: jwk as never, format: 'jwk' })), pem: undefined };
}

/** The bytes as given, and the bytes a base64 text decodes to (a PEM body pasted without its armour). */
function findDer(secret: string | Uint8Array, text: string): KeyMaterial | undefined {
  const raw = typeof secret === 'string' ? Buffer.from(secret, 'latin1') : Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength);
  const candidates: [string, Buffer][] = [['DER-encoded', raw]];
  if (BASE64_TEXT.test(text)) candidates.push(['base64 DER-encoded', Buffer.from(text, 'base64')]);
  for (const [encoding, der] of candidates) {
    if (der[0] !== DER_SEQUENCE) continue;
    for (const [what, read] of DER_READERS) {
      const key = tryRead(() => read(der));
      if (key !== undefined) return { found: `a ${encoding} ${key.asymmetricKeyType ?? 'asymmetric'} ${what}`, keyType: key.asymmetricKeyType, pem: undefined };
    }
  }
  return undefined;
}

/** Only a hint for the error message: a key node:crypto cannot import still is not an HMAC secret. */
function keyTypeOf(importKey: () => KeyObject): string | undefined {
  return tryRead(importKey)?.asymmetricKeyType;
}

function tryRead(read: () => KeyObject): KeyObject | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
