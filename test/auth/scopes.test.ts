import type { RequestListener } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl, type BearerJwtAclOptions, type DecisionLogEvent } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { listen } from '../helpers/listen';
import { startOasHost, type OasHost } from '../helpers/oas-host';
import { HS256, token } from '../helpers/tokens';

// Scopes from the OpenAPI security requirements, decided by the policy beside the role ACL, on
// real Express (4 and 5) and a real @oas-tools/core host, over HTTP on 127.0.0.1.
type ExpressFactory = () => { use: (...args: unknown[]) => void; all: (...args: unknown[]) => void };
const EXPRESS: [string, ExpressFactory][] = [
  ['Express 4', require('express4') as ExpressFactory],
  ['Express 5', require('express') as ExpressFactory],
];

const SCHEMES: Record<string, Record<string, unknown>> = {
  oauth2: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://idp.example/token', scopes: { 'accounts:read': 'read accounts' } } } },
  openIdConnect: { type: 'openIdConnect', openIdConnectUrl: 'https://idp.example/.well-known/openid-configuration' },
  'http bearer': { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
};

/**
 * An OpenAPI 3.1 API whose security scheme `auth` is of the given type: reading accounts needs
 * accounts:read; deleting one needs accounts:write with admin, or accounts:delete; the profile
 * needs a token but no scope; /status is public.
 */
function accountsApi(scheme: Record<string, unknown>): Record<string, unknown> {
  const accountId = { name: 'accountId', in: 'path', required: true, schema: { type: 'integer' }, 'x-acl-binding': 'accounts' };
  return {
    openapi: '3.1.0',
    info: { title: 'accounts', version: '1' },
    components: { securitySchemes: { auth: scheme } },
    paths: {
      '/accounts': { get: { operationId: 'listAccounts', 'x-router-controller': 'accounts', security: [{ auth: ['accounts:read'] }] } },
      '/accounts/{accountId}': {
        get: { operationId: 'getAccount', 'x-router-controller': 'accounts', parameters: [accountId], security: [{ auth: ['accounts:read'] }] },
        delete: { operationId: 'deleteAccount', 'x-router-controller': 'accounts', parameters: [accountId], security: [{ auth: ['accounts:write', 'admin'] }, { auth: ['accounts:delete'] }] },
      },
      '/profile': { get: { operationId: 'getProfile', 'x-router-controller': 'accounts', security: [{ auth: [] }] } },
      '/status': { get: { operationId: 'getStatus', 'x-router-controller': 'accounts', security: [] } },
    },
  };
}

const PERMISSIONS = {
  anonymous: {},
  user: {
    '/accounts': { 'read:any': ['*'] },
    '/accounts/{accountId}': { 'read:own': ['*'], 'delete:own': ['*'] },
    '/profile': { 'read:any': ['*'] },
  },
};

function guardedApp(express: ExpressFactory, scheme: Record<string, unknown>, options: Partial<BearerJwtAclOptions> = {}) {
  const ran: string[] = [];
  const app = express();
  app.use(bearerJwtAcl({ openapi: accountsApi(scheme), handler: bearerJwt(HS256), acl: { auth: PERMISSIONS }, ...options }));
  app.all(/.*/, (req: { method: string; path: string }, res: { json: (body: unknown) => void }) => {
    ran.push(`${req.method} ${req.path}`);
    res.json({ ok: true });
  });
  return { app: app as unknown as RequestListener, ran };
}

const bearer = async (claims: Record<string, unknown>) => `Bearer ${await token({ role: 'user', accounts: [7], ...claims })}`;

describe.each(EXPRESS)('%s + bearerJwtAcl', (_name, express) => {
  describe.each(Object.entries(SCHEMES))('a %s scheme with scopes in its requirements', (_type, scheme) => {
    let url: string;
    let close: () => Promise<void>;
    let ran: string[];
    beforeAll(async () => {
      const guarded = guardedApp(express, scheme);
      ran = guarded.ran;
      ({ url, close } = await listen(guarded.app));
    });
    afterAll(() => close());
    beforeEach(() => {
      ran.length = 0;
    });

    test('a token with the scope is allowed', async () => {
      const response = await request(url).get('/accounts').set('Authorization', await bearer({ scope: 'openid accounts:read' }));
      expect(response.status).toBe(200);
      expect(ran).toEqual(['GET /accounts']);
    });

    test('a token without it is 403 with the insufficient_scope challenge and a JSON body; the route does not run', async () => {
      const response = await request(url).get('/accounts').set('Authorization', await bearer({ scope: 'openid' }));
      expect(response.status).toBe(403);
      expect(response.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="accounts:read"');
      expect(response.body).toEqual({ error: 'Forbidden', message: 'missing scope accounts:read of the security requirement accounts:read', code: 'ERR_SVCGATE_INSUFFICIENT_SCOPE' });
      expect(ran).toEqual([]);
    });

    test('an anonymous caller still gets 401', async () => {
      const response = await request(url).get('/accounts');
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
    });
  });

  describe('reading the token and combining with the role ACL', () => {
    let url: string;
    let close: () => Promise<void>;
    let ran: string[];
    const events: DecisionLogEvent[] = [];
    beforeAll(async () => {
      const guarded = guardedApp(express, SCHEMES.oauth2!, { decisionLog: (event) => events.push(event) });
      ran = guarded.ran;
      ({ url, close } = await listen(guarded.app));
    });
    afterAll(() => close());
    beforeEach(() => {
      ran.length = 0;
      events.length = 0;
    });

    test.each([
      ['scope, a space-separated string', 200, { scope: 'accounts:read' }],
      ['scp, a list of strings (Okta)', 200, { scp: ['openid', 'accounts:read'] }],
      ['scp, a space-separated string (Entra)', 200, { scp: 'openid accounts:read' }],
      ['no scope claim', 403, {}],
      ['scope written as a list (malformed: no scopes)', 403, { scope: ['accounts:read'] }],
      ['scope as a number', 403, { scope: 7 }],
      ['scp with a non-string', 403, { scp: ['accounts:read', 1] }],
      ['a malformed scope is not made up for by scp', 403, { scope: null, scp: ['accounts:read'] }],
      ['a scope that only starts like the needed one', 403, { scope: 'accounts:read:own' }],
      ['scopes are compared exactly, case included', 403, { scope: 'Accounts:Read' }],
    ])('%s -> %d, never 500', async (_case, status, claims) => {
      const response = await request(url).get('/accounts').set('Authorization', await bearer(claims));
      expect(response.status).toBe(status);
      expect(ran).toEqual(status === 200 ? ['GET /accounts'] : []);
    });

    test('alternatives: either requirement met in full is enough', async () => {
      expect((await request(url).delete('/accounts/7').set('Authorization', await bearer({ scope: 'accounts:delete' }))).status).toBe(200);
      expect((await request(url).delete('/accounts/7').set('Authorization', await bearer({ scope: 'admin accounts:write' }))).status).toBe(200);
    });

    test('half of a requirement meets none; the challenge asks for the first requirement', async () => {
      const response = await request(url).delete('/accounts/7').set('Authorization', await bearer({ scope: 'accounts:write' }));
      expect(response.status).toBe(403);
      expect(response.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="accounts:write admin"');
      expect(response.body.message).toBe('missing scope accounts:delete of the security requirement accounts:delete; missing scope admin of the security requirement accounts:write admin');
    });

    test('scopes and the role ACL must both allow: the scope does not make up for ownership', async () => {
      const response = await request(url).get('/accounts/8').set('Authorization', await bearer({ scope: 'accounts:read' }));
      expect(response.status).toBe(403);
      expect(response.headers['www-authenticate']).toBeUndefined();
      expect(response.body.message).toBe('read:own needs ownership of path parameter accountId');
      expect((await request(url).get('/accounts/7').set('Authorization', await bearer({ scope: 'accounts:read' }))).status).toBe(200);
    });

    test('nor does the role make up for the scope', async () => {
      const response = await request(url).get('/accounts/7').set('Authorization', await bearer({ role: 'user', scope: 'openid' }));
      expect(response.status).toBe(403);
      expect(response.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="accounts:read"');
      const stranger = await request(url).get('/accounts').set('Authorization', await bearer({ role: 'guest', scope: 'accounts:read' }));
      expect(stranger.status).toBe(403);
      expect(stranger.headers['www-authenticate']).toBeUndefined();
      expect(stranger.body.message).toBe('no role of the caller is granted read on /accounts; role guest is not declared in the ACL');
    });

    test('an operation that lists no scope needs none; /status is public', async () => {
      expect((await request(url).get('/profile').set('Authorization', await bearer({}))).status).toBe(200);
      expect((await request(url).get('/status')).status).toBe(200);
    });

    test('the input carries only the token scopes the operation names, and only where scopes are needed', async () => {
      await request(url).get('/accounts').set('Authorization', await bearer({ scope: 'openid accounts:read profile' }));
      await request(url).get('/profile').set('Authorization', await bearer({ scope: 'openid accounts:read profile' }));
      expect(events.map((event) => event.input.scopes)).toEqual([['accounts:read'], undefined]);
      expect(events.map((event) => event.result.allow)).toEqual([true, true]);
    });
  });

  describe('requiredScopes', () => {
    let url: string;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ url, close } = await listen(guardedApp(express, SCHEMES['http bearer']!, { requiredScopes: ['api'] }).app));
    });
    afterAll(() => close());

    test('every guarded operation needs them, also one whose requirements list no scope', async () => {
      const without = await request(url).get('/profile').set('Authorization', await bearer({ scope: 'openid' }));
      expect(without.status).toBe(403);
      expect(without.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="api"');
      expect((await request(url).get('/profile').set('Authorization', await bearer({ scope: 'api' }))).status).toBe(200);
    });

    test("they are added to the document's own scopes, and unguarded operations need none", async () => {
      const only = await request(url).get('/accounts').set('Authorization', await bearer({ scope: 'accounts:read' }));
      expect(only.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="accounts:read api"');
      expect((await request(url).get('/accounts').set('Authorization', await bearer({ scope: 'accounts:read api' }))).status).toBe(200);
      expect((await request(url).get('/status')).status).toBe(200);
    });
  });
});

describe('bearerJwtAcl options', () => {
  const create = (requiredScopes: unknown) => () => bearerJwtAcl({ openapi: accountsApi(SCHEMES.oauth2!), handler: bearerJwt(HS256), acl: { auth: PERMISSIONS }, requiredScopes: requiredScopes as string[] });

  test.each([
    [['api', 'two words'], '$.requiredScopes[1]'],
    [[''], '$.requiredScopes[0]'],
    ['api', '$.requiredScopes'],
  ])('requiredScopes %j is a ConfigError at %s', (requiredScopes, path) => {
    expect(create(requiredScopes)).toThrow(ConfigError);
    expect(create(requiredScopes)).toThrow(`<bearerJwtAcl options> at ${path}`);
  });

  test('a bad scope in the document is a ConfigError naming its place', () => {
    const document = accountsApi(SCHEMES.oauth2!);
    (document.paths as Record<string, { get: { security: unknown } }>)['/accounts']!.get.security = [{ auth: ['accounts read'] }];
    expect(() => bearerJwtAcl({ openapi: document, handler: bearerJwt(HS256), acl: { auth: PERMISSIONS } })).toThrow('<inline OpenAPI document> at $.paths["/accounts"].get.security[0].auth[0]: "accounts read" is not a scope');
  });
});

describe('@oas-tools/core + BearerJWT: an http bearer scheme with scopes in its requirements (OpenAPI 3.1)', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'svcgate-scopes-')), 'accounts.yaml');
  const document = accountsApi(SCHEMES['http bearer']!) as { paths: Record<string, Record<string, { security?: unknown }>> };
  // The host refuses an operation that names an http scheme in two requirements.
  document.paths['/accounts/{accountId}']!.delete!.security = [{ auth: ['accounts:delete'] }];
  // Its security handlers are keyed by scheme name: the fixture registers bearerAuth.
  writeFileSync(file, dump(JSON.parse(JSON.stringify(document).replaceAll('"auth"', '"bearerAuth"'))));
  let host: OasHost;
  beforeAll(async () => {
    host = await startOasHost({ openapi: file, jwt: HS256, position: 2, acl: { bearerAuth: PERMISSIONS }, customHandler: true });
  });
  afterAll(() => host.stop());

  const call = async (path: string, authorization?: string) => {
    const response = await fetch(`${host.url}${path}`, { headers: authorization === undefined ? {} : { authorization } });
    return { status: response.status, challenge: response.headers.get('www-authenticate'), body: (await response.json()) as Record<string, unknown> };
  };

  test('a token with the scope is allowed', async () => {
    expect(await call('/accounts', await bearer({ scope: 'accounts:read' }))).toMatchObject({ status: 200, body: { operationId: 'listAccounts' } });
  });

  test('a token without it is 403 with the insufficient_scope challenge; the controller does not run', async () => {
    const before = (await host.calls()).calls.length;
    const denied = await call('/accounts', await bearer({ scp: ['openid'] }));
    expect(denied).toMatchObject({ status: 403, challenge: 'Bearer error="insufficient_scope", scope="accounts:read"' });
    expect(denied.body).toEqual({ error: 'Forbidden', message: 'missing scope accounts:read of the security requirement accounts:read', code: 'ERR_SVCGATE_INSUFFICIENT_SCOPE' });
    expect((await host.calls()).calls.length).toBe(before);
  });

  test('a deny for the role alone carries no scope challenge', async () => {
    const denied = await call('/accounts/8', await bearer({ scope: 'accounts:read' }));
    expect(denied).toMatchObject({ status: 403, challenge: null });
  });

  test('the owner with the scope reads their account; an anonymous caller gets 401', async () => {
    expect((await call('/accounts/7', await bearer({ scope: 'accounts:read' }))).status).toBe(200);
    expect((await call('/accounts')).status).toBe(401);
  });
});
