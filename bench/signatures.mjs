// What checking one token's signature costs, per algorithm, in this process: the signature alone
// (node:crypto over the token's signing input, as jose calls it) and jose's whole jwtVerify (the
// signature, decoding, and the claim checks), each the median of 1,000 distinct tokens.
import { createHmac, createSecretKey, verify } from 'node:crypto';
import { generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { JWT, SIGNED_ALGORITHMS } from './tokens.mjs';

/** The digest node:crypto's verify takes per asymmetric algorithm; Ed25519 takes none. */
const NODE_DIGEST = { RS256: 'sha256', ES256: 'sha256', EdDSA: null };

export async function signatureCosts() {
  const rows = [];
  for (const alg of ['HS256', ...SIGNED_ALGORITHMS]) {
    const keys = alg === 'HS256' ? { privateKey: createSecretKey(Buffer.from(JWT.secret)), publicKey: createSecretKey(Buffer.from(JWT.secret)) } : await generateKeyPair(alg, { crv: alg === 'EdDSA' ? 'Ed25519' : undefined });
    const tokens = [];
    for (let i = 0; i < 1000; i++) tokens.push(await new SignJWT({ sub: `s${i}`, role: 'user' }).setProtectedHeader({ alg }).setIssuer(JWT.issuer).setAudience(JWT.audience).setExpirationTime('2h').sign(keys.privateKey));
    const signatureOnly = (token) => {
      const end = token.lastIndexOf('.');
      const input = Buffer.from(token.slice(0, end));
      const signature = Buffer.from(token.slice(end + 1), 'base64url');
      if (alg === 'HS256') return createHmac('sha256', keys.publicKey).update(input).digest().equals(signature);
      return verify(NODE_DIGEST[alg], input, alg === 'ES256' ? { key: keys.publicKey, dsaEncoding: 'ieee-p1363' } : keys.publicKey, signature);
    };
    const wholeToken = (token) => jwtVerify(token, keys.publicKey, { issuer: JWT.issuer, audience: JWT.audience, algorithms: [alg] });
    rows.push({ alg, signatureUs: await medianUs(tokens, signatureOnly), jwtVerifyUs: await medianUs(tokens, wholeToken) });
  }
  return rows;
}

async function medianUs(tokens, check) {
  for (const token of tokens) await check(token);
  const samples = [];
  for (let round = 0; round < 3; round++) {
    for (const token of tokens) {
      const t0 = process.hrtime.bigint();
      const ok = await check(token);
      samples.push(Number(process.hrtime.bigint() - t0) / 1000);
      if (ok === false) throw new Error('a token did not verify');
    }
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1];
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await signatureCosts());
