import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';

/** The client's DPoP key (RFC 9449): tokens bound to it carry its thumbprint in cnf.jkt. */
export interface DpopTestKey {
  /** The RFC 7638 thumbprint, the value of cnf.jkt. */
  jkt: string;
  /** A proof for one request: `DPoP: <proof>` beside `Authorization: DPoP <token>`. */
  proof(method: string, url: string, token: string): Promise<string>;
}

/** An ES256 key pair made in this process; each proof has a fresh jti, so none is refused as a replay. */
export async function createDpopTestKey(): Promise<DpopTestKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk: JWK = await exportJWK(publicKey);
  return { jkt: await calculateJwkThumbprint(jwk, 'sha256'), proof: (method, url, token) => signProof(privateKey, jwk, method, url, token) };
}

function signProof(privateKey: KeyLike, jwk: JWK, method: string, url: string, token: string): Promise<string> {
  const ath = createHash('sha256').update(token).digest('base64url');
  return new SignJWT({ htm: method.toUpperCase(), htu: url, ath, jti: randomUUID() })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk })
    .setIssuedAt()
    .sign(privateKey);
}
