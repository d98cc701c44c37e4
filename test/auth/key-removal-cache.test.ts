import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { signingKey, signWith, startJwksServer, wait, type JwksServer, type SigningKey } from '../helpers/jwks-server';
import { listen } from '../helpers/listen';

// The verified-token cache never outlives a key: a cached token is served only while its key is
// in a key set younger than cacheMaxAge, so a key the provider dropped stops working at the next
// fetch of the set, for cached tokens too.
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'https://api.example.com';
const EXAMPLE = join(__dirname, '../../examples/users-api');

let keyA: SigningKey;
let keyB: SigningKey;
let jwks: JwksServer;
beforeAll(async () => {
  [keyA, keyB] = await Promise.all([signingKey('a'), signingKey('b')]);
  jwks = await startJwksServer([keyA]);
});
afterAll(() => jwks.close());
beforeEach(() => jwks.serve([keyA]));

const bearer = async (key: SigningKey, claims: Record<string, unknown> = {}) => `Bearer ${await signWith(key, { iss: ISSUER, aud: AUDIENCE, sub: key.kid ?? 'no kid', ...claims })}`;
const noMatchingKey = { code: 'ERR_JWKS_NO_MATCHING_KEY', description: 'no key of the key set matches the token' };

test('a cached token whose kid left the set is refused once a new kid has brought the set again', async () => {
  const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: jwks.url, algorithms: ['ES256'], cooldownDuration: 100 });
  await verify.ready();
  const tokenA = await bearer(keyA);
  await expect(verify(tokenA)).resolves.toMatchObject({ sub: 'a' });
  await expect(verify(tokenA)).resolves.toMatchObject({ sub: 'a' });
  jwks.serve([keyB]);
  await wait(200);
  await expect(verify(await bearer(keyB))).resolves.toMatchObject({ sub: 'b' });
  await expect(verify(tokenA)).rejects.toMatchObject(noMatchingKey);
});

test('a cached token is verified again once its set is older than cacheMaxAge, and refused when its key has gone', async () => {
  const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: jwks.url, algorithms: ['ES256'], cacheMaxAge: 200, cooldownDuration: 60_000 });
  await verify.ready();
  const tokenA = await bearer(keyA);
  const first = await verify(tokenA);
  expect(await verify(tokenA)).toBe(first);
  await wait(300);
  const fetches = jwks.fetches;
  const second = await verify(tokenA);
  expect(second).not.toBe(first);
  expect(second).toEqual(first);
  expect(jwks.fetches).toBe(fetches + 1);
  expect(await verify(tokenA)).toBe(second);
  jwks.serve([keyB]);
  await wait(300);
  await expect(verify(tokenA)).rejects.toMatchObject(noMatchingKey);
});

test('a kid kept for another key: the cached token of the old key is refused', async () => {
  const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: jwks.url, algorithms: ['ES256'], cooldownDuration: 100 });
  await verify.ready();
  const tokenA = await bearer(keyA);
  await verify(tokenA);
  jwks.serve([await signingKey('a'), keyB]);
  await wait(200);
  await verify(await bearer(keyB));
  await expect(verify(tokenA)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED', description: 'the signature does not verify' });
});

test('a token without kid is served from the cache only while its key is in the set', async () => {
  const [plain, next] = await Promise.all([signingKey(undefined), signingKey(undefined)]);
  jwks.serve([plain]);
  const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: jwks.url, algorithms: ['ES256'], cacheMaxAge: 200 });
  await verify.ready();
  const token = await bearer(plain);
  await expect(verify(token)).resolves.toMatchObject({ sub: 'no kid' });
  jwks.serve([next]);
  await wait(300);
  await expect(verify(token)).rejects.toMatchObject({ description: 'the signature does not verify' });
});

test('Express: a request whose cached token lost its key gets a 401 that says so', async () => {
  const express = require('express') as () => { use: (...args: unknown[]) => void; get: (...args: unknown[]) => void };
  const app = express();
  const handler = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: jwks.url, algorithms: ['ES256'], cacheMaxAge: 200, cooldownDuration: 60_000 });
  await handler.ready();
  app.use(bearerJwtAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), handler, acl: { bearerAuth: join(EXAMPLE, 'permissions.yaml') } }));
  app.get(/.*/, (_req: unknown, res: { json: (body: unknown) => void }) => res.json({ ok: true }));
  const server = await listen(app as unknown as RequestListener);
  try {
    const authorization = await bearer(keyA, { role: 'user', userId: 3 });
    const get = () => fetch(`${server.url}/api/v1/users/3`, { headers: { authorization } });
    expect((await get()).status).toBe(200);
    jwks.serve([keyB]);
    await wait(300);
    const refused = await get();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token", error_description="no key of the key set matches the token"');
  } finally {
    await server.close();
  }
});

test('a cached token whose key the set now keeps for another use (use enc) is refused once a new kid has brought the set again', async () => {
  const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: jwks.url, algorithms: ['ES256'], cooldownDuration: 100 });
  await verify.ready();
  const tokenA = await bearer(keyA);
  await expect(verify(tokenA)).resolves.toMatchObject({ sub: 'a' });
  // Still published, but no longer for signatures: a new verification finds no key for the token.
  jwks.serve([{ ...keyA, jwk: { ...keyA.jwk, use: 'enc' } }, keyB]);
  await wait(200);
  await expect(verify(await bearer(keyB))).resolves.toMatchObject({ sub: 'b' });
  await expect(verify(tokenA)).rejects.toMatchObject(noMatchingKey);
});
