import { randomBytes, type KeyObject } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import express from 'express';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl, JsonWebTokenError, type BearerJwtConfig } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { hmacToken } from '../helpers/jwt-pitfalls';
import { listen } from '../helpers/listen';

// `issuers`: each tenant's tokens verified by that tenant's key only, chosen by the token's iss.
// Tenants A and B publish ES256 key sets from two servers on 127.0.0.1; tenant C shares an HMAC secret.
const A = 'https://a.example.com/';
const B = 'https://b.example.com/';
const C = 'tenant-c';
const SECRET_C = randomBytes(32);
const now = () => Math.floor(Date.now() / 1000);

interface Tenant {
  iss: string;
  alg: string;
  kid: string | undefined;
  signWith: KeyObject | Uint8Array;
}

function sign(tenant: Tenant, claims: Record<string, unknown> = {}): Promise<string> {
  const header = tenant.kid === undefined ? { alg: tenant.alg } : { alg: tenant.alg, kid: tenant.kid };
  return new SignJWT({ iss: tenant.iss, exp: now() + 600, aud: 'api', ...claims }).setProtectedHeader(header).sign(tenant.signWith);
}

/** A JWKS endpoint on 127.0.0.1 serving `{ keys }`, counting its requests. */
async function keySetServer(keys: Record<string, unknown>[]) {
  const app = express();
  const served = { count: 0 };
  app.get('/jwks.json', (_req, res) => {
    served.count += 1;
    res.json({ keys });
  });
  const { url, close } = await listen(app as unknown as RequestListener);
  return { jwks: `${url}/jwks.json`, served, close };
}

let tenantA: Tenant;
let tenantB: Tenant;
const tenantC: Tenant = { iss: C, alg: 'HS256', kid: undefined, signWith: new Uint8Array(SECRET_C) };
let servers: Awaited<ReturnType<typeof keySetServer>>[];
let config: BearerJwtConfig;

beforeAll(async () => {
  const pairA = await generateKeyPair('ES256');
  const pairB = await generateKeyPair('ES256');
  tenantA = { iss: A, alg: 'ES256', kid: 'a-1', signWith: pairA.privateKey as KeyObject };
  tenantB = { iss: B, alg: 'ES256', kid: 'b-1', signWith: pairB.privateKey as KeyObject };
  servers = [await keySetServer([{ ...(await exportJWK(pairA.publicKey)), kid: 'a-1' }]), await keySetServer([{ ...(await exportJWK(pairB.publicKey)), kid: 'b-1' }])];
  config = {
    audience: 'api',
    issuers: [
      { issuer: A, jwks: servers[0]!.jwks, algorithms: ['ES256'], audience: 'api-a' },
      { issuer: B, jwks: servers[1]!.jwks, algorithms: ['ES256'] },
      { issuer: C, secret: SECRET_C, algorithms: ['HS256'] },
    ],
  };
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

describe('bearerJwt', () => {
  let verify: ReturnType<typeof bearerJwt>;
  beforeAll(async () => {
    verify = bearerJwt({ ...config, strict: true });
    await verify.ready();
  });

  test.each([
    ['A', () => sign(tenantA, { aud: 'api-a', sub: 'a' }), 'a'],
    ['B', () => sign(tenantB, { sub: 'b' }), 'b'],
    ['C', () => sign(tenantC, { sub: 'c' }), 'c'],
  ])("tenant %s's token is verified with its own key", async (_name, make, sub) => {
    await expect(verify(`Bearer ${await make()}`)).resolves.toMatchObject({ sub });
  });

  test("a token signed by A's key but claiming B's iss is refused, with or without A's kid", async () => {
    const asB = { ...tenantA, iss: B };
    await expect(verify(`Bearer ${await sign(asB)}`)).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    await expect(verify(`Bearer ${await sign({ ...asB, kid: 'b-1' })}`)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
    await expect(verify(`Bearer ${await sign({ ...asB, kid: undefined })}`)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
  });

  test("C's secret cannot sign for A, nor A's key for C: each entry has its own algorithms", async () => {
    await expect(verify(`Bearer ${await sign({ ...tenantC, iss: A }, { aud: 'api-a' })}`)).rejects.toMatchObject({ code: 'ERR_JOSE_ALG_NOT_ALLOWED' });
    await expect(verify(`Bearer ${await sign({ ...tenantA, iss: C })}`)).rejects.toMatchObject({ code: 'ERR_JOSE_ALG_NOT_ALLOWED' });
  });

  test("an entry's audience replaces the top-level one", async () => {
    await expect(verify(`Bearer ${await sign(tenantA, { aud: 'api' })}`)).rejects.toMatchObject({ description: "the token's audience is not accepted" });
    await expect(verify(`Bearer ${await sign(tenantB, { aud: 'api-a' })}`)).rejects.toMatchObject({ description: "the token's audience is not accepted" });
  });

  test.each([
    ['an unknown iss', { iss: 'https://evil.example.com/' }],
    ['no iss', { iss: undefined }],
    ['an iss that is not a string', { iss: [A] }],
    ['an iss naming a property of every object', { iss: '__proto__' }],
    ['an iss differing only in case', { iss: A.toUpperCase() }],
  ])('%s is refused as an issuer not accepted', async (_name, claims) => {
    const token = hmacToken({ alg: 'HS256' }, { exp: now() + 600, aud: 'api', ...claims }, SECRET_C);
    const error = await verify(`Bearer ${token}`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JsonWebTokenError);
    expect(error).toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', description: "the token's issuer is not accepted" });
  });

  test('a token whose payload does not decode is refused as malformed', async () => {
    await expect(verify('Bearer eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.c2ln')).rejects.toMatchObject({ name: 'JsonWebTokenError', code: 'ERR_JWT_INVALID', description: 'the token is not a well-formed JWT' });
  });
});

test('ready() checks every fetched key set: with strict, a dead one rejects naming its entry', async () => {
  const dead = await keySetServer([]);
  await dead.close();
  const issuers = [{ issuer: A, jwks: servers[0]!.jwks, algorithms: ['ES256'] }, { issuer: B, jwks: dead.jwks, algorithms: ['ES256'] }];
  const error = await bearerJwt({ audience: 'api', issuers, strict: true }).ready().catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConfigError);
  expect(error).toMatchObject({ path: '$.issuers[1].jwks' });
});

test('bearerJwtAcl on real Express: each tenant gets in, a cross-tenant token is a 401', async () => {
  const example = join(__dirname, '../../examples/users-api');
  const app = express();
  app.use(bearerJwtAcl({ openapi: join(example, 'openapi.yaml'), acl: { bearerAuth: join(example, 'permissions.yaml') }, handler: bearerJwt(config) }));
  app.get(/.*/, (_req, res) => {
    res.json({ ran: true });
  });
  const { url, close } = await listen(app as unknown as RequestListener);
  try {
    const get = async (token: string) => request(url).get('/api/v1/users/1').set('Authorization', `Bearer ${token}`);
    const owner = { role: 'user', userId: [1] };
    expect((await get(await sign(tenantA, { ...owner, aud: 'api-a' }))).status).toBe(200);
    expect((await get(await sign(tenantB, owner))).status).toBe(200);
    expect((await get(await sign(tenantC, owner))).status).toBe(200);
    const crossed = await get(await sign({ ...tenantA, iss: B, kid: 'b-1' }, owner));
    expect(crossed.status).toBe(401);
    expect(crossed.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="the signature does not verify"');
    const stranger = await get(await sign({ ...tenantC, iss: 'tenant-d' }, owner));
    expect(stranger.status).toBe(401);
    expect(stranger.body).toMatchObject({ message: "the token's issuer is not accepted" });
  } finally {
    await close();
  }
});

describe('configuration', () => {
  const entry = (issuer: string) => ({ issuer, secret: SECRET_C });

  test.each([
    ['issuer', { issuer: A }],
    ['secret', { secret: SECRET_C }],
    ['jwks', { jwks: { keys: [] } }],
    ['issuerBaseURL', { issuerBaseURL: 'http://127.0.0.1:9/realm' }],
  ])('top-level %s beside issuers is a ConfigError', (field, extra) => {
    const error = (() => {
      try {
        bearerJwt({ issuers: [entry(C)], ...extra } as BearerJwtConfig);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ path: `$.${field}`, problem: `${field} is given with issuers` });
  });

  test('an issuer in two entries is a ConfigError, lists included', () => {
    expect(() => bearerJwt({ issuers: [entry(A), entry(C), entry(A)] })).toThrow('<bearerJwt config> at $.issuers[2].issuer: the issuer "https://a.example.com/" is in two entries');
    expect(() => bearerJwt({ issuers: [{ ...entry(A), issuer: [B, A] }, entry(A)] })).toThrow('at $.issuers[1].issuer');
  });

  test("an entry's problems are reported at its path", () => {
    expect(() => bearerJwt({ issuers: [entry(A), { issuer: B }] })).toThrow('at $.issuers[1].secret: no key is given');
    expect(() => bearerJwt({ issuers: [entry(A), { issuer: B, jwks: 'http://127.0.0.1:9/jwks.json', algorithms: ['HS256'] }] })).toThrow('at $.issuers[1].algorithms');
    expect(() => bearerJwt({ issuers: [entry(A), { issuer: B, secret: SECRET_C, algorithms: ['RS256'] }] })).toThrow('at $.issuers[1].algorithms: RS256 cannot be verified with an HMAC secret');
    expect(() => bearerJwt({ issuers: [entry(A), { secret: SECRET_C }] })).toThrow('at $.issuers[1].issuer: no issuer is given');
    expect(() => bearerJwt({ issuers: [{ ...entry(A), clockTolerance: 5 }] } as unknown as BearerJwtConfig)).toThrow(ConfigError);
    expect(() => bearerJwt({ issuers: [] })).toThrow(ConfigError);
  });

  test("profile 'rfc9068' needs an audience for every entry, given there or at the top level", () => {
    expect(() => bearerJwt({ profile: 'rfc9068', issuers: [{ ...entry(A), audience: 'api' }, entry(B)] })).toThrow('at $.issuers[1].audience');
    expect(() => bearerJwt({ profile: 'rfc9068', audience: 'api', issuers: [entry(A), entry(B)] })).not.toThrow();
  });
});
