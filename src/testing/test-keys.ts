import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK, type KeyLike } from 'jose';

/** The algorithms createTestIssuer signs with: one per key family svcgate verifies. */
export type TestAlgorithm = 'HS256' | 'RS256' | 'ES256' | 'EdDSA';
export const TEST_ALGORITHMS: readonly TestAlgorithm[] = ['HS256', 'RS256', 'ES256', 'EdDSA'];

/**
 * One signing key and what a verifier is given for it: the HMAC secret itself, or the public JWK.
 * `kid` names the key in the JWK set and in the header of every token it signs.
 */
export interface TestKey {
  signingKey: KeyLike | Uint8Array;
  kid: string;
  /** HS256: the secret as bearerJwt takes it (hex text, 32 random bytes). */
  secret?: string;
  /** The asymmetric algorithms: the public key as a JWK, with kid, alg and use. */
  publicJwk?: JWK;
}

/**
 * A new key for `alg`, made in this process and never written anywhere. `kid` is given so that a
 * "wrong key" can carry the kid of the right one: the token then fails on its signature, not on
 * a key the set does not have.
 */
export async function generateTestKey(alg: TestAlgorithm, kid: string): Promise<TestKey> {
  if (alg === 'HS256') {
    // Hex text rather than bytes: random bytes could start like a DER key, which bearerJwt refuses as a secret.
    const secret = randomBytes(32).toString('hex');
    return { signingKey: new TextEncoder().encode(secret), kid, secret };
  }
  const { privateKey, publicKey } = await generateKeyPair(alg, { crv: alg === 'EdDSA' ? 'Ed25519' : undefined });
  return { signingKey: privateKey, kid, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}
