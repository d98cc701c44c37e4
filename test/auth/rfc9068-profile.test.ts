import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import express from 'express';
import { SignJWT } from 'jose';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl, JsonWebTokenError } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { listen } from '../helpers/listen';
import { ISSUER, SECRET } from '../helpers/tokens';

// profile: 'rfc9068' (JWT access tokens): header typ at+jwt and the claims of RFC 9068, section 2.2.
const AUDIENCE = 'https://api.example.com';
const PROFILE = { issuer: ISSUER, secret: SECRET, audience: AUDIENCE, profile: 'rfc9068' } as const;
const PLAIN = { issuer: ISSUER, secret: SECRET, audience: AUDIENCE };
const now = () => Math.floor(Date.now() / 1000);

/** Every claim RFC 9068 requires, valid; `omit` leaves some out. */
function accessClaims(omit: string[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  const claims: Record<string, unknown> = { iss: ISSUER, exp: now() + 600, aud: AUDIENCE, sub: 'u1', client_id: 'app', iat: now(), jti: randomUUID(), ...extra };
  for (const name of omit) delete claims[name];
  return claims;
}

function sign(claims: Record<string, unknown>, typ: string | undefined): Promise<string> {
  return new SignJWT(claims).setProtectedHeader(typ === undefined ? { alg: 'HS256' } : { alg: 'HS256', typ }).sign(new TextEncoder().encode(SECRET));
}

test('the profile without audience is a ConfigError: RFC 9068 asks for the audience check', () => {
  const config = { issuer: ISSUER, secret: SECRET, profile: 'rfc9068' } as const;
  expect(() => bearerJwt(config)).toThrow(ConfigError);
  expect(() => bearerJwt(config)).toThrow("<bearerJwt config> at $.audience: profile 'rfc9068' needs the audience check");
});

test('an unknown profile is a ConfigError', () => {
  expect(() => bearerJwt({ ...PLAIN, profile: 'rfc7519' } as unknown as Parameters<typeof bearerJwt>[0])).toThrow(ConfigError);
});

describe('the header typ', () => {
  const withProfile = bearerJwt(PROFILE);
  const without = bearerJwt(PLAIN);

  test.each(['at+jwt', 'application/at+jwt', 'AT+JWT'])('typ %s is accepted', async (typ) => {
    await expect(withProfile(`Bearer ${await sign(accessClaims(), typ)}`)).resolves.toMatchObject({ sub: 'u1', client_id: 'app' });
  });

  test.each([
    ['typ JWT', 'JWT'],
    ['no typ', undefined],
    ['typ at+jwt+more', 'at+jwt+more'],
  ])('%s is refused with the profile and accepted without it', async (_name, typ) => {
    const token = await sign(accessClaims(), typ);
    const error = await withProfile(`Bearer ${token}`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JsonWebTokenError);
    expect(error).toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', description: 'the token is not a JWT access token (typ at+jwt)' });
    await expect(without(`Bearer ${token}`)).resolves.toMatchObject({ sub: 'u1' });
  });
});

describe('the required claims', () => {
  const withProfile = bearerJwt(PROFILE);
  const without = bearerJwt(PLAIN);

  test.each(['iss', 'exp', 'aud', 'sub', 'client_id', 'iat', 'jti'])('a token without %s is refused with the profile', async (claim) => {
    const token = await sign(accessClaims([claim]), 'at+jwt');
    await expect(withProfile(`Bearer ${token}`)).rejects.toMatchObject({ name: 'JsonWebTokenError', code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', description: `the token has no ${claim} claim` });
  });

  test.each(['sub', 'client_id', 'iat', 'jti'])('a token without %s is accepted without the profile', async (claim) => {
    await expect(without(`Bearer ${await sign(accessClaims([claim]), 'at+jwt')}`)).resolves.toMatchObject({ iss: ISSUER });
  });

  test('requiredClaims adds to the profile\'s claims rather than replacing them', async () => {
    const verify = bearerJwt({ ...PROFILE, requiredClaims: ['tenant'] });
    await expect(verify(`Bearer ${await sign(accessClaims([], { tenant: 't1' }), 'at+jwt')}`)).resolves.toMatchObject({ tenant: 't1' });
    await expect(verify(`Bearer ${await sign(accessClaims(), 'at+jwt')}`)).rejects.toMatchObject({ description: 'the token lacks a required claim' });
    await expect(verify(`Bearer ${await sign(accessClaims(['jti'], { tenant: 't1' }), 'at+jwt')}`)).rejects.toMatchObject({ description: 'the token has no jti claim' });
  });

  test('the audience is still checked', async () => {
    await expect(withProfile(`Bearer ${await sign(accessClaims([], { aud: 'https://other.example.com' }), 'at+jwt')}`)).rejects.toMatchObject({ description: "the token's audience is not accepted" });
  });
});

test('bearerJwtAcl on real Express answers an ID token (typ JWT) with 401 and the reason', async () => {
  const example = join(__dirname, '../../examples/users-api');
  const app = express();
  app.use(bearerJwtAcl({ openapi: join(example, 'openapi.yaml'), acl: { bearerAuth: join(example, 'permissions.yaml') }, handler: bearerJwt(PROFILE) }));
  app.get(/.*/, (_req, res) => {
    res.json({ ran: true });
  });
  const { url, close } = await listen(app as unknown as RequestListener);
  try {
    const claims = accessClaims([], { role: 'user', userId: [1] });
    const accessToken = await request(url).get('/api/v1/users/1').set('Authorization', `Bearer ${await sign(claims, 'at+jwt')}`);
    expect(accessToken.status).toBe(200);
    const idToken = await request(url).get('/api/v1/users/1').set('Authorization', `Bearer ${await sign(claims, 'JWT')}`);
    expect(idToken.status).toBe(401);
    expect(idToken.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="the token is not a JWT access token (typ at+jwt)"');
    expect(idToken.body).toMatchObject({ message: 'the token is not a JWT access token (typ at+jwt)' });
  } finally {
    await close();
  }
});
