import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import request from 'supertest';
import { bearerJwtAcl } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { createTestIssuer, TEST_ALGORITHMS, type TestIssuer, type TestIssuerOptions } from '../../src/testing';
import { listen } from '../helpers/listen';

// A route test as an app would write it: svcgate/testing alone gives the keys, the bearerJwt
// configuration and the tokens; real Express, bearerJwtAcl over the users API's ACL, real HTTP.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const OPENAPI = join(EXAMPLE, 'openapi.yaml');
const PERMISSIONS = join(EXAMPLE, 'permissions.yaml');
const USER = { sub: 'u1', role: 'user', userId: [1, 3, 5] };
const ADMIN = { sub: 'a1', role: 'admin' };

async function serve(issuer: TestIssuer) {
  const express = require('express') as () => { use: (...args: unknown[]) => void; all: (...args: unknown[]) => void };
  const app = express();
  app.use(bearerJwtAcl({ openapi: OPENAPI, handler: issuer.handler(), acl: { bearerAuth: PERMISSIONS } }));
  app.all(/.*/, (_req: unknown, res: { json: (body: unknown) => void }) => res.json({ ok: true }));
  return listen(app as unknown as RequestListener);
}

describe.each(TEST_ALGORITHMS)('createTestIssuer({ alg: %s }) with Express + bearerJwtAcl', (alg) => {
  let issuer: TestIssuer;
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    issuer = await createTestIssuer({ alg });
    ({ url, close } = await serve(issuer));
  });
  afterAll(() => close());
  const get = (path: string, token: string) => request(url).get(path).set('Authorization', `Bearer ${token}`);

  test('its configuration names the issuer, the audience and the key, without private parts', () => {
    expect(issuer.config).toMatchObject({ issuer: 'https://issuer.svcgate.test/', audience: 'https://api.svcgate.test', algorithms: [alg] });
    if (alg === 'HS256') expect(issuer.config.secret).toEqual(expect.any(String));
    else expect((issuer.config.jwks as { keys: Record<string, unknown>[] }).keys.map((key) => Object.keys(key).filter((name) => ['d', 'p', 'q', 'dp', 'dq', 'qi'].includes(name)))).toEqual([[]]);
  });

  test('a valid token is allowed or denied as the ACL says', async () => {
    const user = await issuer.sign(USER);
    expect((await get('/api/v1/users/3', user)).status).toBe(200);
    expect((await get('/api/v1/users/2', user)).status).toBe(403);
    expect((await request(url).delete('/api/v1/users/3').set('Authorization', `Bearer ${user}`)).status).toBe(403);
    expect((await request(url).delete('/api/v1/users/3').set('Authorization', `Bearer ${await issuer.sign(ADMIN)}`)).status).toBe(200);
  });

  test.each([
    ['expired', { expired: true }, 'the token has expired'],
    ['signed by another key', { wrongKey: true }, 'the signature does not verify'],
    ['for another audience', { audience: 'https://other-api.svcgate.test' }, "the token's audience is not accepted"],
    ['not yet valid', { notBefore: 120 }, 'the token is not valid yet'],
    ['past a short lifetime', { expiresIn: -30 }, 'the token has expired'],
  ])('a token %s is refused with 401 invalid_token', async (_name, options, description) => {
    const response = await get('/api/v1/users/3', await issuer.sign(USER, options));
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(response.headers['www-authenticate']).toContain(description);
  });

  test('header extras and claims that override the defaults are signed as given', async () => {
    const token = await issuer.sign({ ...USER, exp: Math.floor(Date.now() / 1000) + 30 }, { header: { typ: 'at+jwt' }, expiresIn: '2h' });
    const [header, payload] = token.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>);
    expect(header).toMatchObject({ typ: 'at+jwt', alg });
    expect(payload!.exp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 30);
    expect((await get('/api/v1/users/3', token)).status).toBe(200);
  });
});

describe('DPoP-bound tokens', () => {
  let issuer: TestIssuer;
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    issuer = await createTestIssuer({ alg: 'ES256', dpop: true });
    ({ url, close } = await serve(issuer));
  });
  afterAll(() => close());

  test('a bound token with its proof is allowed; without the proof, or as a Bearer token, it is refused', async () => {
    const token = await issuer.sign(USER, { dpop: true });
    const target = `${url}/api/v1/users/3`;
    const withProof = await request(url).get('/api/v1/users/3').set('Authorization', `DPoP ${token}`).set('DPoP', await issuer.dpopProof('GET', target, token));
    expect(withProof.status).toBe(200);
    expect((await request(url).get('/api/v1/users/3').set('Authorization', `DPoP ${token}`)).status).toBe(401);
    expect((await request(url).get('/api/v1/users/3').set('Authorization', `Bearer ${token}`)).status).toBe(401);
    const proofForAnotherUrl = await issuer.dpopProof('GET', `${url}/api/v1/users/5`, token);
    expect((await request(url).get('/api/v1/users/3').set('Authorization', `DPoP ${token}`).set('DPoP', proofForAnotherUrl)).status).toBe(401);
  });

  test('an issuer without dpop refuses to bind a token, saying how', async () => {
    const plain = await createTestIssuer({ alg: 'ES256' });
    await expect(plain.sign(USER, { dpop: true })).rejects.toThrow('createTestIssuer({ alg, dpop: true })');
    await expect(plain.dpopProof('GET', 'http://127.0.0.1/', 'x')).rejects.toThrow('createTestIssuer({ alg, dpop: true })');
  });
});

test('each issuer has its own key: a token of one is refused by the configuration of another', async () => {
  const [first, second] = await Promise.all([createTestIssuer({ alg: 'RS256' }), createTestIssuer({ alg: 'RS256' })]);
  const verify = second!.handler();
  await expect(verify(`Bearer ${await second!.sign(USER)}`)).resolves.toMatchObject({ sub: 'u1' });
  await expect(verify(`Bearer ${await first!.sign(USER)}`)).rejects.toThrow('signature verification failed');
});

test('bad options are a ConfigError that says what is accepted', async () => {
  const error = await createTestIssuer({ alg: 'none' } as unknown as TestIssuerOptions).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as Error).message).toContain('alg must be one of HS256, RS256, ES256, EdDSA');
});
