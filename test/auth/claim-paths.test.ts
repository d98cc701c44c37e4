import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { listen } from '../helpers/listen';
import { failedStart, startOasHost, type OasHost } from '../helpers/oas-host';
import { HS256, token } from '../helpers/tokens';

// roleBinding and x-acl-binding name claims by path: Keycloak's realm_access.roles, Auth0's
// namespaced claims, nested ownership claims. Real Express and @oas-tools/core, real HS256 tokens.
const express = require('express') as () => { use: (...args: unknown[]) => void; all: (...args: unknown[]) => void };

/** /reports is for admins (read:any); /accounts/{accountId} for owners, through `accountBinding`. */
function api(accountBinding: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'claims', version: '1' },
    security: [{ bearerAuth: [] }],
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    paths: {
      '/reports': { get: {} },
      '/accounts/{accountId}': { get: { parameters: [{ name: 'accountId', in: 'path', required: true, schema: { type: 'integer' }, 'x-acl-binding': accountBinding }] } },
    },
  };
}
const ACL = { anonymous: {}, admin: { '/reports': { 'read:any': ['*'] } }, user: { '/accounts/{accountId}': { 'read:own': ['*'] } } };

function guarded(roleBinding: string | undefined, accountBinding = 'accounts'): RequestListener {
  const app = express();
  app.use(bearerJwtAcl({ openapi: api(accountBinding), handler: bearerJwt(HS256), acl: { bearerAuth: ACL }, ...(roleBinding === undefined ? {} : { roleBinding }) }));
  app.all(/.*/, (_req: unknown, res: { json: (body: unknown) => void }) => res.json({ ok: true }));
  return app as unknown as RequestListener;
}

/** Serves one app per test and answers the status of GET `path` with a token of `claims`. */
async function status(app: RequestListener, path: string, claims: Record<string, unknown>): Promise<number> {
  const { url, close } = await listen(app);
  try {
    return (await request(url).get(path).set('Authorization', `Bearer ${await token(claims)}`)).status;
  } finally {
    await close();
  }
}

/** A payload with an own `__proto__` claim, as JSON.parse (and so every JWT library) builds it. */
const withProtoClaim = (claim: unknown, rest: Record<string, unknown> = {}) => ({ ...(JSON.parse(`{"__proto__": ${JSON.stringify(claim)}}`) as Record<string, unknown>), ...rest });

describe('roleBinding as a claim path', () => {
  test('Keycloak realm roles: realm_access.roles', async () => {
    const app = guarded('realm_access.roles');
    expect(await status(app, '/reports', { realm_access: { roles: ['offline_access', 'admin'] } })).toBe(200);
    expect(await status(app, '/reports', { realm_access: { roles: ['user'] } })).toBe(403);
  });

  test('Keycloak client roles: resource_access["my-api"].roles', async () => {
    const app = guarded('resource_access["my-api"].roles');
    expect(await status(app, '/reports', { resource_access: { 'my-api': { roles: ['admin'] }, other: { roles: [] } } })).toBe(200);
    expect(await status(app, '/reports', { resource_access: { 'other-api': { roles: ['admin'] } }, role: 'user' })).toBe(403);
  });

  test('an Auth0-style namespaced claim: ["https://example.com/roles"]', async () => {
    const app = guarded('["https://example.com/roles"]');
    expect(await status(app, '/reports', { 'https://example.com/roles': ['admin'] })).toBe(200);
    // Not the nested reading of the same text.
    expect(await status(app, '/reports', { 'https://example': { 'com/roles': ['admin'] } })).toBe(403);
  });

  test('when the path is absent, the role claim is read, as with a top-level roleBinding', async () => {
    const app = guarded('realm_access.roles');
    expect(await status(app, '/reports', { role: 'admin' })).toBe(200);
    expect(await status(app, '/reports', { realm_access: { groups: ['user'] }, role: 'admin' })).toBe(200);
  });

  test('a path through something that is not an object is a malformed role claim: 403, no fallback, never 500', async () => {
    const app = guarded('realm_access.roles');
    expect(await status(app, '/reports', { realm_access: ['admin'], role: 'admin' })).toBe(403);
    expect(await status(app, '/reports', { realm_access: 'admin', role: 'admin' })).toBe(403);
    expect(await status(app, '/reports', { realm_access: null, role: 'admin' })).toBe(403);
    expect(await status(app, '/reports', { realm_access: { roles: { admin: true } } })).toBe(403);
  });

  test('constructor and toString find own claims only, never what every object inherits', async () => {
    // Read from Object.prototype, these would give the roles "Object" and a function: both deny.
    expect(await status(guarded('constructor.name'), '/reports', { role: 'admin' })).toBe(200);
    expect(await status(guarded('toString'), '/reports', { role: 'admin' })).toBe(200);
    expect(await status(guarded('constructor.name'), '/reports', { constructor: { name: 'user' }, role: 'admin' })).toBe(403);
  });

  test('__proto__ is an ordinary claim name: the own claim is read, never a prototype', async () => {
    expect(await status(guarded('__proto__.roles'), '/reports', withProtoClaim({ roles: ['admin'] }))).toBe(200);
    expect(await status(guarded('__proto__.roles'), '/reports', withProtoClaim({ roles: ['user'] }, { role: 'admin' }))).toBe(403);
    expect(await status(guarded('__proto__.roles'), '/reports', { role: 'admin' })).toBe(200);
  });

  test.each([
    ['realm_access.', 'the path ends with a dot'],
    ['realm_access..roles', 'empty name at character 14'],
    ['groups[0]', 'is not followed by a double-quoted name'],
    ['resource_access["my-api".roles', 'is not followed by ]'],
    ['https://example.com/roles', 'write it in brackets: ["https://example.com/roles"]'],
  ])('roleBinding %j is a ConfigError at start-up', (roleBinding, problem) => {
    const create = () => guarded(roleBinding);
    expect(create).toThrow(ConfigError);
    expect(create).toThrow('<bearerJwtAcl options> at $.roleBinding');
    expect(create).toThrow(problem);
  });
});

describe('x-acl-binding as a claim path', () => {
  test('a nested claim owns the parameter', async () => {
    const app = guarded(undefined, 'tenant.accounts');
    expect(await status(app, '/accounts/7', { role: 'user', tenant: { accounts: [3, 7] } })).toBe(200);
    expect(await status(app, '/accounts/8', { role: 'user', tenant: { accounts: [3, 7] } })).toBe(403);
    // The top-level claim of the same text is another claim.
    expect(await status(app, '/accounts/7', { role: 'user', 'tenant.accounts': [7] })).toBe(403);
  });

  test('a namespaced claim in brackets', async () => {
    const app = guarded(undefined, '["https://example.com/accounts"]');
    expect(await status(app, '/accounts/7', { role: 'user', 'https://example.com/accounts': ['7'] })).toBe(200);
  });

  test('a path through a list or a string owns nothing', async () => {
    const app = guarded(undefined, 'tenant.accounts');
    expect(await status(app, '/accounts/7', { role: 'user', tenant: [{ accounts: [7] }] })).toBe(403);
    expect(await status(app, '/accounts/7', { role: 'user', tenant: '7' })).toBe(403);
  });

  test('inherited members are no claims: constructor.length does not own /accounts/1', async () => {
    // Object.prototype.constructor.length is 1.
    expect(await status(guarded(undefined, 'constructor.length'), '/accounts/1', { role: 'user' })).toBe(403);
    expect(await status(guarded(undefined, 'constructor.length'), '/accounts/1', { role: 'user', constructor: { length: 1 } })).toBe(200);
  });

  test('a bad path is a ConfigError naming the parameter', () => {
    expect(() => guarded(undefined, 'tenant..accounts')).toThrow('<inline OpenAPI document> at $.paths["/accounts/{accountId}"].get.parameters[0]["x-acl-binding"]');
  });
});

describe('@oas-tools/core + BearerJWT', () => {
  const OPENAPI = join(__dirname, '../../examples/users-api/openapi.yaml');
  const PERMISSIONS = join(__dirname, '../../examples/users-api/permissions.yaml');
  let host: OasHost;
  beforeAll(async () => {
    host = await startOasHost({ openapi: OPENAPI, jwt: HS256, position: 2, acl: { bearerAuth: PERMISSIONS }, roleBinding: 'realm_access.roles', customHandler: true });
  });
  afterAll(() => host.stop());

  test('roleBinding realm_access.roles reads the nested roles', async () => {
    const call = async (claims: Record<string, unknown>) => (await fetch(`${host.url}/api/v1/users/4`, { method: 'DELETE', headers: { authorization: `Bearer ${await token(claims)}` } })).status;
    expect(await call({ realm_access: { roles: ['admin'] } })).toBe(200);
    expect(await call({ realm_access: { roles: ['user'] }, userId: 4 })).toBe(403);
  });

  test('a bad roleBinding stops the start with a ConfigError', async () => {
    const { code, output } = await failedStart({ openapi: OPENAPI, jwt: HS256, position: 2, acl: { bearerAuth: PERMISSIONS }, roleBinding: 'realm_access.' });
    expect(code).not.toBe(0);
    expect(output).toContain('ConfigError');
    expect(output).toContain('the path ends with a dot');
  });
});
