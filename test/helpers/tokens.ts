import { SignJWT } from 'jose';

export const ISSUER = 'svcgate-tests';
export const SECRET = 'a-test-secret-that-is-32-bytes-long!';
export const HS256 = { issuer: ISSUER, secret: SECRET };

/** An HS256 token signed with the test secret; `claims` may override iss, exp and the rest. */
export function token(claims: Record<string, unknown> = {}, secret: string = SECRET): Promise<string> {
  return new SignJWT({ iss: ISSUER, exp: Math.floor(Date.now() / 1000) + 600, ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(secret));
}
