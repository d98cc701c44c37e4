import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearerApi } from '../helpers/bearer-api';
import { startOasHost, type OasHost } from '../helpers/oas-host';
import { HS256, token } from '../helpers/tokens';

// BearerJWT's route layer takes every method since 552a4d2 (405 for a method no matching path
// declares). A method that another matching path declares is passed on by the first route, and
// must still be decided, and refused, by the route of the path that declares it: DELETE /users/me
// is the /users/{id} operation in Express (the only route with DELETE).
// Real @oas-tools/core 3.1.0 over HTTP on 127.0.0.1.
const DOCUMENT = bearerApi(
  {
    '/users/me': { 'x-router-controller': 'users', get: { operationId: 'getMe', responses: { '200': { description: 'me' } } } },
    '/users/{id}': {
      'x-router-controller': 'users',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: { operationId: 'getUser', responses: { '200': { description: 'one' } } },
      delete: { operationId: 'deleteUser', responses: { '200': { description: 'deleted' } } },
    },
  },
  'other path',
);
const OPENAPI = join(mkdtempSync(join(tmpdir(), 'svcgate-oas-other-path-')), 'openapi.yaml');
writeFileSync(OPENAPI, JSON.stringify(DOCUMENT));
const ACL = {
  bearerAuth: {
    anonymous: {},
    guest: { '/users/me': { 'read:any': ['*'] } },
    user: { '/users/me': { 'read:any': ['*'] }, '/users/{id}': { 'read:any': ['*'] } },
    admin: { $extend: ['user'], '/users/{id}': { 'delete:any': ['*'] } },
  },
};

describe('BearerJWT: a method another matching path declares', () => {
  let host: OasHost;
  beforeAll(async () => {
    host = await startOasHost({ openapi: OPENAPI, jwt: { ...HS256, audience: false }, position: 2, acl: ACL });
  }, 120_000);
  afterAll(() => host?.stop());

  const as = async (role: string) => ({ authorization: `Bearer ${await token({ role })}` });

  test('DELETE /users/me passes the route of /users/me and is decided by /users/{id}: 403 for user, 200 for admin', async () => {
    const denied = await fetch(`${host.url}/users/me`, { method: 'DELETE', headers: await as('user') });
    expect(denied.status).toBe(403);
    expect((await host.calls()).calls).toEqual([]);
    const allowed = await fetch(`${host.url}/users/me`, { method: 'DELETE', headers: await as('admin') });
    expect(allowed.status).toBe(200);
    expect((await host.calls()).calls).toEqual(['deleteUser']);
  });

  test('OPTIONS reaches no operation: Express answers it, no controller runs', async () => {
    const answer = await fetch(`${host.url}/users/me`, { method: 'OPTIONS', headers: await as('guest') });
    expect(answer.status).toBe(200);
    expect((await host.calls()).calls).toEqual(['deleteUser']);
  });

  test('a method no matching path declares is 405, not passed on', async () => {
    const answer = await fetch(`${host.url}/users/me`, { method: 'PUT', headers: await as('admin') });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, DELETE');
    expect((await host.calls()).calls).toEqual(['deleteUser']);
  });
});
