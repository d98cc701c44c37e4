import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export const JWT = { issuer: 'svcgate-bench', audience: 'svcgate-bench-api', secret: 'bench-secret-that-is-at-least-32-bytes' };

/**
 * 1,000 distinct valid tokens of `user`s, each owning one of users 1..5, and the requests that go
 * with them: every other request asks for the caller's own user (allowed), the rest for another
 * user (denied), so both roads are measured.
 */
export async function requestPool(pathFor) {
  const key = new TextEncoder().encode(JWT.secret);
  const pool = [];
  for (let i = 0; i < 1000; i++) {
    const own = (i % 5) + 1;
    const jwt = await new SignJWT({ sub: `u${i}`, role: 'user', userId: [own] })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(JWT.issuer)
      .setAudience(JWT.audience)
      .setExpirationTime('2h')
      .sign(key);
    const target = i % 2 === 0 ? own : (own % 5) + 1;
    pool.push({ path: pathFor(target), headers: { authorization: `Bearer ${jwt}` } });
  }
  return pool;
}

/**
 * For the cold scenarios: a function that makes each request with a token and a user never seen
 * before (`sub` and `userId` counting up), half for the caller's own user and half for the next
 * one. Tokens are signed here, synchronously (autocannon asks for each request as it sends it).
 */
export function coldRequests(pathFor) {
  const encode = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = encode({ alg: 'HS256', typ: 'JWT' });
  const exp = Math.floor(Date.now() / 1000) + 7200;
  let n = 1_000_000;
  return () => {
    n += 1;
    const payload = encode({ sub: `c${n}`, role: 'user', userId: [n], iss: JWT.issuer, aud: JWT.audience, exp });
    const signature = createHmac('sha256', JWT.secret).update(`${header}.${payload}`).digest('base64url');
    return { path: pathFor(n % 2 === 0 ? n : n + 1), headers: { authorization: `Bearer ${header}.${payload}.${signature}` } };
  };
}

/** The algorithms of the signed-token scenarios, each with a key of its usual size: RSA 2048, P-256, Ed25519. */
export const SIGNED_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];

/**
 * For the signed-token scenarios: a key pair per algorithm, its public half served as a JWK set on
 * 127.0.0.1 (the server fetches it once, as from an identity provider), and per algorithm 1,000
 * tokens of users never seen before. An RS256 signature takes the load generator about a
 * millisecond, too slow to mint one per request, so these servers run with the token cache and
 * the decision cache off instead: every request verifies its signature and is decided anew, as a
 * new token would be. Sets BENCH_JWKS_URL for the server processes started after it.
 */
export async function signedPools(pathFor) {
  const keys = [];
  const pools = {};
  for (const alg of SIGNED_ALGORITHMS) {
    const { publicKey, privateKey } = await generateKeyPair(alg, { crv: alg === 'EdDSA' ? 'Ed25519' : undefined });
    keys.push({ ...(await exportJWK(publicKey)), kid: alg, alg, use: 'sig' });
    const pool = [];
    for (let i = 0; i < 1000; i++) {
      const n = 2_000_000 + i;
      const jwt = await new SignJWT({ sub: `s${n}`, role: 'user', userId: [n] })
        .setProtectedHeader({ alg, kid: alg })
        .setIssuer(JWT.issuer)
        .setAudience(JWT.audience)
        .setExpirationTime('2h')
        .sign(privateKey);
      pool.push({ path: pathFor(i % 2 === 0 ? n : n + 1), headers: { authorization: `Bearer ${jwt}` } });
    }
    pools[alg] = pool;
  }
  const body = JSON.stringify({ keys });
  const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.BENCH_JWKS_URL = `http://127.0.0.1:${server.address().port}/jwks.json`;
  return { pools, close: () => server.close() };
}
