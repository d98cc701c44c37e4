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
