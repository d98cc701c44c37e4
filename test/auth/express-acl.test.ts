import { generateKeyPairSync } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl, type BearerJwtAclOptions, type DecisionLogEvent, type RequestAuth } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { hmacPitfalls, rsaPitfalls } from '../helpers/jwt-pitfalls';
import { listen } from '../helpers/listen';
import { HS256, ISSUER, token } from '../helpers/tokens';

// The plain-Express adapter, on Express 4 and 5, over real HTTP on 127.0.0.1.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const OPENAPI = join(EXAMPLE, 'openapi.yaml');
const ACL = { bearerAuth: join(EXAMPLE, 'permissions.yaml') };
type ExpressFactory = () => { use: (...args: unknown[]) => void; get: (...args: unknown[]) => void; all: (...args: unknown[]) => void };
const EXPRESS: [string, ExpressFactory][] = [
  ['Express 4', require('express4') as ExpressFactory],
  ['Express 5', require('express') as ExpressFactory],
];

/** An app guarded by bearerJwtAcl whose every route records that it ran and echoes req.auth. */
function guardedApp(express: ExpressFactory, options: Partial<BearerJwtAclOptions> = {}) {
  const ran: string[] = [];
  const app = express();
  app.use(bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt(HS256), acl: ACL, ...options }));
  app.all(/.*/, (req: { method: string; path: string; auth?: RequestAuth }, res: { json: (body: unknown) => void }) => {
    ran.push(`${req.method} ${req.path}`);
    const auth = req.auth;
    res.json({ role: auth?.decision.role, sub: auth?.payload?.sub, visible: auth?.filter({ id: 1, name: 'n', password: 'p' }) });
  });
  return { app: app as unknown as RequestListener, ran };
}

describe.each(EXPRESS)('%s', (_name, express) => {
  let url: string;
  let close: () => Promise<void>;
  let ran: string[];
  const events: DecisionLogEvent[] = [];
  beforeAll(async () => {
    const guarded = guardedApp(express, { decisionLog: (event) => events.push(event) });
    ran = guarded.ran;
    ({ url, close } = await listen(guarded.app));
  });
  afterAll(() => close());
  beforeEach(() => {
    ran.length = 0;
    events.length = 0;
  });

  describe('the seed case: read:own on /users/{userId}, a token listing 1, 3 and 5', () => {
    test.each([
      ['1', 200],
      ['3', 200],
      ['5', 200],
      ['2', 403],
      ['4', 403],
      ['6', 403],
    ])('GET /api/v1/users/%s -> %d', async (id, status) => {
      const response = await request(url).get(`/api/v1/users/${id}`).set('Authorization', `Bearer ${await token({ role: 'user', userId: [1, 3, 5] })}`);
      expect(response.status).toBe(status);
      expect(ran).toEqual(status === 200 ? [`GET /api/v1/users/${id}`] : []);
    });
  });

  test('an allowed request carries req.auth with the payload, the decision and filter', async () => {
    const response = await request(url).get('/api/v1/users/3').set('Authorization', `Bearer ${await token({ sub: 'u3', role: 'user', userId: 3 })}`);
    expect(response.body).toEqual({ role: 'user', sub: 'u3', visible: { id: 1, name: 'n' } });
  });

  test('a denial is 403 JSON with the reason, and the route does not run', async () => {
    const response = await request(url).delete('/api/v1/users/3').set('Authorization', `Bearer ${await token({ role: 'user', userId: 3 })}`);
    expect(response.status).toBe(403);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual({ error: 'Forbidden', message: 'no role of the caller is granted delete on /users/{userId}', code: 'ERR_SVCGATE_FORBIDDEN' });
    expect(ran).toEqual([]);
  });

  test('a token without the role claim is anonymous, and the 403 and the log say which claim was looked for', async () => {
    const response = await request(url).get('/api/v1/users/3').set('Authorization', `Bearer ${await token({ sub: 'u3', userId: 3 })}`);
    expect(response.status).toBe(403);
    expect(response.body.message).toBe('the token has no role claim (role), so the caller is anonymous; no role of the caller is granted read on /users/{userId}');
    expect(events[0]!.result.reasons[0]).toBe('the token has no role claim (role), so the caller is anonymous');
    const other = await request(url).get('/api/v1/users/3').set('Authorization', `Bearer ${await token({ sub: 'u3', role: 'guest', userId: 3 })}`);
    expect(other.body.message).not.toMatch(/no role claim/);
  });

  test('no credentials on a guarded operation: 401 with a bare Bearer challenge', async () => {
    const response = await request(url).get('/api/v1/users/3');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.body).toEqual({ error: 'Unauthorized', message: 'this operation needs a bearer token', code: 'ERR_SVCGATE_NO_CREDENTIALS' });
  });

  test('no credentials where anonymous may read: allowed as anonymous', async () => {
    // The example ACL declares anonymous: {}; this one grants anonymous the user list.
    const open = await listen(guardedApp(express, { acl: { bearerAuth: { anonymous: { '/users': { 'read:any': ['*'] } } } } }).app);
    const response = await request(open.url).get('/api/v1/users');
    await open.close();
    expect(response.status).toBe(200);
    expect(response.body.role).toBe('anonymous');
  });

  test('an invalid token: 401 with error="invalid_token"', async () => {
    const response = await request(url).get('/api/v1/users').set('Authorization', 'Bearer not.a.token');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="the token is not a well-formed JWT"');
    expect(response.body).toEqual({ error: 'Unauthorized', message: 'the token is not a well-formed JWT', code: 'ERR_JWS_INVALID' });
    expect(ran).toEqual([]);
  });

  test('an operation without the bearer scheme is not checked, whatever the header', async () => {
    const response = await request(url).get('/api/v1/status').set('Authorization', 'Bearer garbage');
    expect(response.status).toBe(200);
  });

  test('a path outside the document is 404 JSON', async () => {
    const response = await request(url).get('/api/v1/admin');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'NotFound', message: 'no operation of the API matches GET /api/v1/admin', code: 'ERR_SVCGATE_NO_OPERATION' });
    expect((await request(url).get('/users/3')).status).toBe(404);
  });

  test('HEAD is decided as the GET operation', async () => {
    const auth = `Bearer ${await token({ role: 'user', userId: 3 })}`;
    expect((await request(url).head('/api/v1/users/3').set('Authorization', auth)).status).toBe(200);
    expect((await request(url).head('/api/v1/users/4').set('Authorization', auth)).status).toBe(403);
  });

  test('every decision goes to decisionLog, without the token', async () => {
    const jwt = await token({ role: 'user', userId: 3 });
    await request(url).get('/api/v1/users/4').set('Authorization', `Bearer ${jwt}`);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ path: 'svcgate/authz/decision', operation: 'GET /users/{userId}', input: { role: 'user' }, result: { allow: false, reasons: ['read:own needs ownership of path parameter userId'] } });
    expect(events[0]!.decision_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(events[0]!.data_revision).toMatch(/^[0-9a-f]{16}$/);
    expect(events[0]!.policy_revision).toMatch(/^[0-9a-f]{16}$/);
    expect(events[0]!.metrics.timer_svcgate_decision_ns).toBeGreaterThan(0);
    expect(events[0]!.labels).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(JSON.stringify(events)).not.toContain(jwt);
  });
});

describe('options', () => {
  test('unknownOperations: "pass" lets other routes through', async () => {
    const { app } = guardedApp(require('express'), { unknownOperations: 'pass' });
    const { url, close } = await listen(app);
    expect((await request(url).get('/health')).status).toBe(200);
    await close();
  });

  test('a path in other letter case is still guarded, as Express would route it', async () => {
    const { app, ran } = guardedApp(require('express'), { unknownOperations: 'pass' });
    const { url, close } = await listen(app);
    const auth = `Bearer ${await token({ role: 'user', userId: 3 })}`;
    expect((await request(url).get('/API/V1/USERS/4').set('Authorization', auth)).status).toBe(403);
    expect((await request(url).get('/Api/v1/Users/3').set('Authorization', auth)).status).toBe(200);
    expect(ran).toEqual(['GET /Api/v1/Users/3']);
    await close();
  });

  test('roleBinding names the role claim', async () => {
    const { app } = guardedApp(require('express'), { roleBinding: 'groups' });
    const { url, close } = await listen(app);
    expect((await request(url).delete('/api/v1/users/9').set('Authorization', `Bearer ${await token({ groups: ['admin'] })}`)).status).toBe(200);
    await close();
  });

  test('checkOwnership decides ownership; a throwing one denies, never 500', async () => {
    const even = guardedApp(require('express'), { checkOwnership: (_payload, _binding, value) => Number(value) % 2 === 0 });
    const throwing = guardedApp(require('express'), {
      checkOwnership: () => {
        throw new Error('store down');
      },
    });
    const a = await listen(even.app);
    const b = await listen(throwing.app);
    const auth = `Bearer ${await token({ role: 'user' })}`;
    expect((await request(a.url).get('/api/v1/users/2').set('Authorization', auth)).status).toBe(200);
    expect((await request(a.url).get('/api/v1/users/3').set('Authorization', auth)).status).toBe(403);
    expect((await request(b.url).get('/api/v1/users/2').set('Authorization', auth)).status).toBe(403);
    await a.close();
    await b.close();
  });

  test('a throwing decisionLog does not change the answer', async () => {
    const { app } = guardedApp(require('express'), {
      decisionLog: () => {
        throw new Error('log sink down');
      },
    });
    const { url, close } = await listen(app);
    const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    expect((await request(url).get('/api/v1/users').set('Authorization', `Bearer ${await token({ role: 'admin' })}`)).status).toBe(200);
    expect(warning).toHaveBeenCalledWith('decisionLog threw: log sink down', { code: 'SVCGATE_DECISION_LOG' });
    warning.mockRestore();
    await close();
  });

  test('another verifier than bearerJwt may answer with a thenable of another promise library: its payload is awaited, not taken for one', async () => {
    const thenable = (payload: object) => ({ then: (resolve: (value: object) => void) => setImmediate(() => resolve(payload)) });
    const handler = Object.assign((header: unknown) => thenable(header === 'Bearer one' ? { sub: 'u1', role: 'user', userId: [1] } : {}), { challenges: ['Bearer'], ready: async () => undefined });
    const { app } = guardedApp(require('express'), { handler: handler as unknown as BearerJwtAclOptions['handler'] });
    const { url, close } = await listen(app);
    expect((await request(url).get('/api/v1/users/1').set('Authorization', 'Bearer one')).body).toMatchObject({ role: 'user', sub: 'u1' });
    expect((await request(url).get('/api/v1/users/2').set('Authorization', 'Bearer one')).status).toBe(403);
    await close();
  });

  test.each(EXPRESS)('%s: a new token whose key is at hand, and a token verified before, are decided at once: the route runs, or the 403 is sent, before the middleware returns', async (_name, express) => {
    const app = express();
    const guard = bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt(HS256), acl: ACL });
    const settledWithin: string[] = [];
    app.use((req: unknown, res: { headersSent: boolean }, next: (error?: unknown) => void) => {
      let returned = false;
      let passed = false;
      guard(req as never, res as never, (error?: unknown) => {
        passed = true;
        settledWithin.push(returned ? 'next later' : 'next at once');
        next(error);
      });
      if (!passed && res.headersSent) settledWithin.push('answered at once');
      returned = true;
    });
    app.get('/api/v1/users/:userId', (_req: unknown, res: { json: (body: unknown) => void }) => res.json({}));
    const { url, close } = await listen(app as unknown as RequestListener);
    const jwt = `Bearer ${await token({ role: 'user', userId: [1] })}`;
    expect((await request(url).get('/api/v1/users/1').set('Authorization', jwt)).status).toBe(200);
    expect((await request(url).get('/api/v1/users/1').set('Authorization', jwt)).status).toBe(200);
    expect((await request(url).get('/api/v1/users/2').set('Authorization', jwt)).status).toBe(403);
    // The first is verified synchronously (the secret is at hand); the token cache answers the others.
    expect(settledWithin).toEqual(['next at once', 'next at once', 'answered at once']);
    await close();
  });
});

describe('the JWT pitfall list: every case is 401, never 500, and the route never runs', () => {
  let url: string;
  let close: () => Promise<void>;
  let ran: string[];
  beforeAll(async () => {
    const guarded = guardedApp(require('express'));
    ran = guarded.ran;
    ({ url, close } = await listen(guarded.app));
  });
  afterAll(() => close());

  test('a valid token gets through (the cases below differ from it in one way each)', async () => {
    expect((await request(url).delete('/api/v1/users/1').set('Authorization', `Bearer ${await token({ role: 'admin' })}`)).status).toBe(200);
    ran.length = 0;
  });

  test('HMAC key: every pitfall', async () => {
    const cases = await hmacPitfalls();
    expect(cases.length).toBeGreaterThanOrEqual(35);
    const statuses: Record<string, number> = {};
    for (const pitfall of cases) {
      const target = `/api/v1/users/1${pitfall.query ? `?${pitfall.query}` : ''}`;
      const call = request(url).delete(target);
      statuses[pitfall.name] = (await (pitfall.authorization === undefined ? call : call.set('Authorization', pitfall.authorization))).status;
    }
    expect(statuses).toEqual(Object.fromEntries(cases.map((pitfall) => [pitfall.name, 401])));
    expect(ran).toEqual([]);
  });

  test('exp and nbf within the 5 s clock tolerance are accepted', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const claims of [{ exp: now - 3 }, { nbf: now + 3 }]) {
      expect((await request(url).get('/api/v1/users').set('Authorization', `Bearer ${await token({ role: 'admin', ...claims })}`)).status).toBe(200);
    }
  });

  test('a token without exp is refused by default (SPEC 9.6), accepted with requiredClaims: []', async () => {
    const noExp = await new SignJWT({ role: 'admin' }).setProtectedHeader({ alg: 'HS256' }).setIssuer(ISSUER).sign(new TextEncoder().encode(HS256.secret));
    expect((await request(url).get('/api/v1/users').set('Authorization', `Bearer ${noExp}`)).status).toBe(401);
    const optedOut = express5Guard({ requiredClaims: [] });
    const server = await listen(optedOut);
    expect((await request(server.url).get('/api/v1/users').set('Authorization', `Bearer ${noExp}`)).status).toBe(200);
    await server.close();
  });

  test('audience lists: one matching entry is enough, none is 401', async () => {
    const guard = express5Guard({ audience: 'svcgate-api' });
    const server = await listen(guard);
    const status = async (aud: unknown) => (await request(server.url).get('/api/v1/users').set('Authorization', `Bearer ${await token({ role: 'admin', aud })}`)).status;
    expect(await status(['other', 'svcgate-api'])).toBe(200);
    expect(await status(['other'])).toBe(401);
    expect(await status(undefined)).toBe(401);
    await server.close();
  });

  test('RSA key: algorithm confusion and key tricks', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
    // No audience check, on purpose: the pitfalls' tokens carry no aud, and each must be refused for its own trick.
    const app = express5Guard({ secret: pem, algorithms: ['RS256'], audience: false });
    const server = await listen(app);
    const good = await new SignJWT({ iss: ISSUER, role: 'admin' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('5m').sign(privateKey);
    expect((await request(server.url).get('/api/v1/users/1').set('Authorization', `Bearer ${good}`)).status).toBe(200);
    const cases = await rsaPitfalls(publicKey, pem);
    const statuses: Record<string, number> = {};
    for (const pitfall of cases) statuses[pitfall.name] = (await request(server.url).get('/api/v1/users/1').set('Authorization', pitfall.authorization!)).status;
    expect(statuses).toEqual(Object.fromEntries(cases.map((pitfall) => [pitfall.name, 401])));
    await server.close();
  });
});

function express5Guard(jwt: Record<string, unknown>): RequestListener {
  const app = require('express')();
  app.use(bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt({ ...HS256, ...jwt }), acl: ACL }));
  app.all(/.*/, (_req: unknown, res: { json: (body: unknown) => void }) => res.json({}));
  return app;
}

describe('bad configurations are ConfigErrors at creation', () => {
  const handler = bearerJwt(HS256);
  test.each([
    ['a missing handler', { openapi: OPENAPI, acl: ACL }, /handler must be the function bearerJwt\(config\) returns/],
    ['two schemes in acl', { openapi: OPENAPI, handler, acl: { a: {}, b: {} } }, /acl must name exactly one security scheme/],
    ['an unknown scheme', { openapi: OPENAPI, handler, acl: { apiKey: {} } }, /there is no security scheme named "apiKey"/],
    ['an ACL naming an unknown path', { openapi: OPENAPI, handler, acl: { bearerAuth: { user: { '/nowhere': { 'read:any': ['*'] } } } } }, /\/nowhere is not a path of the OpenAPI document/],
    ['an unknown option', { openapi: OPENAPI, handler, acl: ACL, rolebinding: 'x' }, /Unrecognized key/],
    ['a missing OpenAPI file', { openapi: '/nowhere/api.yaml', handler, acl: ACL }, /cannot read the OpenAPI document/],
    ['checkOwnership that is not a function', { openapi: OPENAPI, handler, acl: ACL, checkOwnership: true }, /checkOwnership must be a function/],
  ])('%s', (_name, options, message) => {
    expect(() => bearerJwtAcl(options as unknown as BearerJwtAclOptions)).toThrow(ConfigError);
    expect(() => bearerJwtAcl(options as unknown as BearerJwtAclOptions)).toThrow(message);
  });
});
