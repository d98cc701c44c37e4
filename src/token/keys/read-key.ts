import { createPublicKey, createSecretKey, KeyObject } from 'node:crypto';
import { localJwkSet, type JwkSetLookup } from '../jws/local-jwk-set';
import { ConfigError } from '../../policy/compile/config-error';
import { algorithmsForKey, algorithmsForKeyType, describeKey, HMAC_ALGORITHMS } from './algorithms';
import { detectKeyMaterial, type KeyMaterial } from './detect-key-material';

const FILE = '<bearerJwt config>';
/** RFC 8725, section 3.5: an HMAC key should be at least as long as the hash output. */
const MIN_SECRET_BYTES = 32;

export type ConfiguredSecret = string | Uint8Array | KeyObject;
export type LocalJwkSet = { keys: Record<string, unknown>[] };

/**
 * The key given in the configuration (a secret, a public key, or a local JWK set), imported once
 * and checked against the algorithms. `at` is the JSON path of the object holding the fields
 * (`$`, or an entry of `issuers`).
 */
export function readKey(secret: ConfiguredSecret | undefined, jwks: LocalJwkSet | undefined, algorithms: string[], at: string): KeyObject | JwkSetLookup {
  if (secret !== undefined && jwks !== undefined) throw new ConfigError(FILE, at, 'both secret and jwks are given', 'give secret for one key, or jwks for a key set');
  if (jwks !== undefined) {
    const hmac = hmacOf(algorithms);
    if (hmac.length > 0) throw new ConfigError(FILE, `${at}.algorithms`, `${hmac.join(', ')} cannot be used with a JWK set`, 'list the asymmetric algorithms of the set, e.g. ["RS256"]');
    try {
      return localJwkSet(jwks.keys);
    } catch (error) {
      // The set is copied here: a value that cannot be copied (a function, a symbol) is a mistake of the configuration.
      throw new ConfigError(FILE, `${at}.jwks`, `invalid JWK set: ${(error as Error).message}`, 'give { keys: [ ...public JWKs ] } of JSON values');
    }
  }
  if (secret === undefined) throw new ConfigError(FILE, `${at}.secret`, 'no key is given', 'give secret (an HMAC secret or a public key) or jwks');
  const key = toKey(secret, algorithms, at);
  checkKeyFitsAlgorithms(key, algorithms, at);
  return key;
}

function toKey(secret: ConfiguredSecret, algorithms: string[], at: string): KeyObject {
  if (secret instanceof KeyObject) return checkKeyObject(secret, algorithms, at);
  const material = detectKeyMaterial(secret);
  if (material !== undefined) return importKeyMaterial(material, algorithms, at);
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : new Uint8Array(secret);
  if (bytes.length === 0) throw new ConfigError(FILE, `${at}.secret`, 'the secret is empty', 'use a random secret of at least 32 bytes');
  // Imported once, and its HMAC check made once (see signature-check.ts).
  return createSecretKey(bytes);
}

function checkKeyObject(key: KeyObject, algorithms: string[], at: string): KeyObject {
  if (key.type === 'private') throw new ConfigError(FILE, `${at}.secret`, 'secret is a private key', 'pass the public key (crypto.createPublicKey(privateKey))');
  // createSecretKey(readFileSync('pub.pem')) is the same mix-up as passing the file's bytes.
  const material = key.type === 'secret' ? detectKeyMaterial(key.export()) : undefined;
  const hmac = hmacOf(algorithms);
  if (material !== undefined && hmac.length > 0) throw keyAsHmacSecretError(material, hmac, at);
  return key;
}

/**
 * A key is never an HMAC secret, whether it comes as a string or a Buffer: with an HMAC algorithm,
 * whoever has the key (a public key, a certificate) could sign tokens. Without one, a PEM is
 * imported as the public key it names; DER and JWK are refused rather than guessed at, since
 * crypto.createPublicKey reads them when told the format.
 */
function importKeyMaterial(material: KeyMaterial, algorithms: string[], at: string): KeyObject {
  const hmac = hmacOf(algorithms);
  if (hmac.length > 0) throw keyAsHmacSecretError(material, hmac, at);
  if (material.pem === undefined) {
    throw new ConfigError(FILE, `${at}.secret`, `the secret holds ${material.found}, which is read only from PEM text`, 'pass the key as a KeyObject (crypto.createPublicKey(...)) or as PEM text; a JWK set goes in jwks');
  }
  try {
    return createPublicKey(material.pem);
  } catch (error) {
    throw new ConfigError(FILE, `${at}.secret`, `the PEM text is not a public key (${(error as Error).message})`, 'pass a PEM "PUBLIC KEY" or certificate');
  }
}

function keyAsHmacSecretError(material: KeyMaterial, hmac: string[], at: string): ConfigError {
  const byType = algorithmsForKeyType(material.keyType);
  const fitting = byType.length > 0 ? byType : ['RS256', 'ES256', 'EdDSA'];
  return new ConfigError(
    FILE,
    `${at}.secret`,
    `the secret holds ${material.found}, which ${hmac.join(', ')} would use as an HMAC secret: anyone who has that key could sign tokens`,
    `to verify with the key, pass it as a KeyObject or PEM with algorithms set to one of ${fitting.join(', ')}; for HMAC, use a random secret of at least ${MIN_SECRET_BYTES} bytes (crypto.randomBytes(${MIN_SECRET_BYTES}))`,
  );
}

function hmacOf(algorithms: string[]): string[] {
  return algorithms.filter((algorithm) => HMAC_ALGORITHMS.includes(algorithm));
}

/**
 * The key decides which algorithms can be right, by its type and curve: an HMAC secret never
 * verifies RS256 (nor the reverse), a P-256 key verifies ES256 only.
 */
function checkKeyFitsAlgorithms(key: KeyObject, algorithms: string[], at: string): void {
  const secret = key.type === 'secret';
  const fitting = secret ? HMAC_ALGORITHMS : algorithmsForKey(key);
  const misfits = algorithms.filter((algorithm) => !fitting.includes(algorithm));
  if (misfits.length > 0) {
    const kind = secret ? 'an HMAC secret' : describeKey(key);
    throw new ConfigError(FILE, `${at}.algorithms`, `${misfits.join(', ')} cannot be verified with ${kind}`, `use ${fitting.join(', ') || 'another key'}`);
  }
  const length = key.type === 'secret' ? key.symmetricKeySize ?? 0 : Infinity;
  if (length < MIN_SECRET_BYTES) {
    process.emitWarning(`the HMAC secret has ${length} bytes; RFC 8725 asks for at least ${MIN_SECRET_BYTES}`, { code: 'SVCGATE_WEAK_SECRET' });
  }
}
