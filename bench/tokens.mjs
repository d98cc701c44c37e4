import { createHmac } from 'node:crypto';
import { SignJWT } from 'jose';

export const JWT = { issuer: 'svcgate-bench', secret: 'bench-secret-that-is-at-least-32-bytes', requiredClaims: ['exp'] };

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
    const payload = encode({ sub: `c${n}`, role: 'user', userId: [n], iss: JWT.issuer, exp });
    const signature = createHmac('sha256', JWT.secret).update(`${header}.${payload}`).digest('base64url');
    return { path: pathFor(n % 2 === 0 ? n : n + 1), headers: { authorization: `Bearer ${header}.${payload}.${signature}` } };
  };
}
