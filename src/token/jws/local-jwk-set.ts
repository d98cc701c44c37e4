import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { JwtCheckFailure, keyMisfit } from './jwt-check-failure';
import type { JwsHeader } from './read-compact';

/** The key a token's header asks for, found in a JWK set (synchronously: the set is at hand). */
export type JwkSetLookup = (header: JwsHeader) => KeyObject;

const CURVES_BY_ALG: Readonly<Record<string, readonly string[]>> = {
  ES256: ['P-256'],
  ES256K: ['secp256k1'],
  ES384: ['P-384'],
  ES512: ['P-521'],
  Ed25519: ['Ed25519'],
  EdDSA: ['Ed25519', 'Ed448'],
};

/**
 * Selects keys as jose's createLocalJWKSet does, so both agree on every token: the key type by
 * the algorithm's family, then `kid` (when the header's is a string), the JWK's `alg`, `use`,
 * `key_ops` and curve. No match, or more than one, refuses the token. A JWK is imported once per
 * algorithm; one that Node cannot import, or a private one, refuses the tokens that select it.
 */
export function localJwkSet(keys: readonly Record<string, unknown>[]): JwkSetLookup {
  const jwks = structuredClone(keys);
  const imported = new WeakMap<Record<string, unknown>, Map<string, KeyObject | JwtCheckFailure>>();
  return (header) => {
    const { alg, kid } = header;
    const kty = keyTypeOf(alg);
    const candidates = jwks.filter((jwk) => isCandidate(jwk, kty, alg as string, kid));
    if (candidates.length === 0) throw new JwtCheckFailure('ERR_JWKS_NO_MATCHING_KEY', 'no applicable key found in the JSON Web Key Set');
    if (candidates.length > 1) throw new JwtCheckFailure('ERR_JWKS_MULTIPLE_MATCHING_KEYS', 'multiple matching keys found in the JSON Web Key Set');
    const jwk = candidates[0]!;
    let byAlg = imported.get(jwk);
    if (byAlg === undefined) imported.set(jwk, (byAlg = new Map()));
    let key = byAlg.get(alg as string);
    if (key === undefined) byAlg.set(alg as string, (key = importPublic(jwk)));
    if (key instanceof JwtCheckFailure) throw key;
    return key;
  };
}

function keyTypeOf(alg: unknown): string {
  switch (typeof alg === 'string' && alg.slice(0, 2)) {
    case 'RS':
    case 'PS':
      return 'RSA';
    case 'ES':
      return 'EC';
    case 'Ed':
      return 'OKP';
    default:
      throw new JwtCheckFailure('ERR_JOSE_NOT_SUPPORTED', 'Unsupported "alg" value for a JSON Web Key Set');
  }
}

function isCandidate(jwk: Record<string, unknown>, kty: string, alg: string, kid: unknown): boolean {
  if (jwk.kty !== kty) return false;
  if (typeof kid === 'string' && kid !== jwk.kid) return false;
  if (typeof jwk.alg === 'string' && jwk.alg !== alg) return false;
  if (typeof jwk.use === 'string' && jwk.use !== 'sig') return false;
  if (Array.isArray(jwk.key_ops) && !jwk.key_ops.includes('verify')) return false;
  const curves = CURVES_BY_ALG[alg];
  return curves === undefined || curves.includes(jwk.crv as string);
}

/** As jose's importJWK: an RSA key with other primes is not supported; `d` makes it a private key, which a set must not hold. */
function importPublic(jwk: Record<string, unknown>): KeyObject | JwtCheckFailure {
  if (jwk.kty === 'RSA' && 'oth' in jwk && jwk.oth !== undefined) return new JwtCheckFailure('ERR_JOSE_NOT_SUPPORTED', 'RSA JWK "oth" (Other Primes Info) Parameter value is not supported');
  let key: KeyObject;
  try {
    key = jwk.d ? createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' }) : createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
  } catch (error) {
    return keyMisfit(`the JWK cannot be imported (${(error as Error).message})`);
  }
  return key.type === 'public' ? key : new JwtCheckFailure('ERR_JWKS_INVALID', 'JSON Web Key Set members must be public keys');
}
