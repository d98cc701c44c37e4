import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearerApi } from '../helpers/bearer-api';
import { startOasHost, type OasHost, type OasSetup } from '../helpers/oas-host';
import { HS256, token } from '../helpers/tokens';

// A documented path asked with a method it does not declare, and OPTIONS, through BearerJWT in
// the real @oas-tools/core 3.1.0 (Express 4) over real HTTP on 127.0.0.1: the host itself answers
// such a method with Express's 404 page; BearerJWT answers 405 with Allow, as bearerJwtAcl does.
const DOCUMENT = {
  ...bearerApi(
    {
      '/users': {
        'x-router-controller': 'users',
        get: { operationId: 'listUsers', responses: { '200': { description: 'all' } } },
        post: { operationId: 'createUser', responses: { '200': { description: 'created' } } },
      },
      '/users/{id}': {
        'x-router-controller': 'users',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: { operationId: 'getUser', responses: { '200': { description: 'one' } } },
      },
      '/users/me': { 'x-router-controller': 'users', patch: { operationId: 'updateMe', responses: { '200': { description: 'updated' } } } },
      '/open': { 'x-router-controller': 'users', get: { operationId: 'openThing', security: [], responses: { '200': { description: 'open' } } } },
    },
    'methods',
  ),
  servers: [{ url: '/api' }],
};
const OPENAPI = join(mkdtempSync(join(tmpdir(), 'svcgate-oas-methods-')), 'openapi.yaml');
writeFileSync(OPENAPI, JSON.stringify(DOCUMENT));
const ACL = { bearerAuth: { anonymous: {}, user: { '/users': { 'read:any': ['*'], 'create:any': ['*'] }, '/users/{id}': { 'read:any': ['*'] }, '/users/me': { 'update:any': ['*'] } } } };
const SETUP: OasSetup = { openapi: OPENAPI, jwt: { ...HS256, audience: false }, position: 2, acl: ACL };
const PREFLIGHT = { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' };

describe('BearerJWT in @oas-tools/core 3.1.0', () => {
  let host: OasHost;
  let withNext: OasHost;
  // Each host is a process of its own; on a loaded machine starting one can take a while.
  beforeAll(async () => {
    host = await startOasHost(SETUP);
    withNext = await startOasHost({ ...SETUP, errors: 'next', customHandler: true });
  }, 120_000);
  afterAll(() => {
    host?.stop();
    withNext?.stop();
  });

  test('a secured path asked with a method it does not declare is 405 with Allow, in the JSON every adapter answers with', async () => {
    const answer = await fetch(`${host.url}/api/users`, { method: 'DELETE', headers: { authorization: `Bearer ${await token({ role: 'user' })}` } });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(await answer.json()).toEqual({ error: 'MethodNotAllowed', message: '/api/users answers GET, HEAD, POST, not DELETE', code: 'ERR_SVCGATE_METHOD_NOT_ALLOWED' });
    expect((await host.calls()).calls).toEqual([]);
  });

  test('Allow lists the methods of every documented path the request path matches, and those methods still reach their operations', async () => {
    const put = await fetch(`${host.url}/api/users/me`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, PATCH');
    const auth = { authorization: `Bearer ${await token({ role: 'user' })}` };
    // PATCH /users/me meets the route of /users/{id} first (it comes first in the document), which passes it on.
    expect((await fetch(`${host.url}/api/users/me`, { method: 'PATCH', headers: auth })).status).toBe(200);
    expect((await fetch(`${host.url}/api/users/me`, { headers: auth })).status).toBe(200);
    expect((await host.calls()).calls).toEqual(['updateMe', 'getUser']);
  });

  test("errors: 'next' with jwtErrorHandler: the same 405 and Allow, through the host's error handler", async () => {
    const answer = await fetch(`${withNext.url}/api/users`, { method: 'DELETE' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(((await answer.json()) as { code: string }).code).toBe('ERR_SVCGATE_METHOD_NOT_ALLOWED');
  });

  test("OPTIONS of a documented path, preflight or not, goes on to Express's own OPTIONS answer (or a cors() before the host)", async () => {
    for (const headers of [{}, PREFLIGHT]) {
      const answer = await fetch(`${host.url}/api/users`, { method: 'OPTIONS', headers });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('allow')).toBe('GET,HEAD,POST');
    }
  });

  test('a path without the bearer scheme, and a path outside the document, keep the host answer: 404', async () => {
    expect((await fetch(`${host.url}/api/open`, { method: 'DELETE' })).status).toBe(404);
    expect((await fetch(`${host.url}/api/elsewhere`, { method: 'DELETE' })).status).toBe(404);
  });
});
