import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { SignJWT } from 'jose';
import { hmacPitfalls, rsaPitfalls, type Pitfall } from '../helpers/jwt-pitfalls';
import { failedStart, startOasHost, type OasHost, type OasSetup } from '../helpers/oas-host';
import { HS256, ISSUER, token } from '../helpers/tokens';

// The OpenAPI guard (bearerJwt + BearerJWT) inside the real @oas-tools/core 3.1.0, each configuration in its own process,
// spoken to over HTTP on 127.0.0.1.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const OPENAPI = join(EXAMPLE, 'openapi.yaml');
const PERMISSIONS = join(EXAMPLE, 'permissions.yaml');
const BASE = '/api/v1';
const work = mkdtempSync(join(tmpdir(), 'svcgate-oas-'));
const standard: OasSetup = { openapi: OPENAPI, jwt: HS256, position: 2, acl: { bearerAuth: PERMISSIONS }, customHandler: true };

async function call(host: OasHost, method: string, path: string, authorization?: string) {
  const response = await fetch(`${host.url}${BASE}${path}`, { method, headers: authorization === undefined ? {} : { authorization } });
  const text = await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
}
const bearer = async (claims: Record<string, unknown>) => `Bearer ${await token(claims)}`;

/** Starts a host for the tests of one describe block and stops it after them. */
function withHost(setup: OasSetup): () => OasHost {
  let host: OasHost;
  beforeAll(async () => {
    host = await startOasHost(setup);
  });
  afterAll(() => host.stop());
  return () => host;
}

describe('use(BearerJWT, config, 2) with bearerJwt and jwtErrorHandler', () => {
  const host = withHost(standard);

  test('the seed case: a token listing 1, 3 and 5 reads exactly those users', async () => {
    const auth = await bearer({ role: 'user', userId: [1, 3, 5] });
    const statuses: Record<string, number> = {};
    for (const id of ['1', '2', '3', '4', '5', '6', '003']) statuses[id] = (await call(host(), 'GET', `/users/${id}`, auth)).status;
    expect(statuses).toEqual({ 1: 200, 2: 403, 3: 200, 4: 403, 5: 200, 6: 403, '003': 200 });
  });

  test('a denial is 403 with the JSON body every adapter answers with, and the controller does not run', async () => {
    const before = (await host().calls()).calls.length;
    const denied = await call(host(), 'DELETE', '/users/3', await bearer({ role: 'user', userId: 3 }));
    expect(denied).toMatchObject({ status: 403, body: { error: 'Forbidden', message: 'no role of the caller is granted delete on /users/{userId}', code: 'ERR_SVCGATE_FORBIDDEN' } });
    expect((await host().calls()).calls.length).toBe(before);
  });

  test('the controller gets the granted attributes and filter in res.locals.oas.acl', async () => {
    const allowed = await call(host(), 'GET', '/users/3', await bearer({ role: 'user', userId: 3 }));
    expect(allowed).toMatchObject({ status: 200, body: { operationId: 'getUser', role: 'user', possession: 'own', visible: { id: '3', name: 'n', email: 'e' } } });
    const admin = await call(host(), 'DELETE', '/users/3', await bearer({ role: 'admin' }));
    expect(admin.body).toMatchObject({ operationId: 'deleteUser', possession: 'any', visible: { id: '3', name: 'n', email: 'e', password: 'secret' } });
  });

  test('no token: the host 401 with a bare Bearer challenge', async () => {
    expect(await call(host(), 'GET', '/users/3')).toMatchObject({ status: 401, challenge: 'Bearer' });
  });

  test('a bad token: 401 with error="invalid_token" and the JSON body every adapter answers with', async () => {
    expect(await call(host(), 'GET', '/users/3', 'Bearer a.b.c')).toEqual({
      status: 401,
      challenge: 'Bearer error="invalid_token", error_description="the token is not a well-formed JWT"',
      body: { error: 'Unauthorized', message: 'the token is not a well-formed JWT', code: 'ERR_JWS_INVALID' },
    });
  });

  test('an operation with security: [] is not checked', async () => {
    expect((await call(host(), 'GET', '/status')).status).toBe(200);
  });

  test('x-acl-binding: accounts are owned through the accounts claim', async () => {
    const auth = await bearer({ role: 'user', accounts: ['acc-1'], accountId: 'acc-2' });
    expect((await call(host(), 'GET', '/accounts/acc-1', auth)).status).toBe(200);
    expect((await call(host(), 'GET', '/accounts/acc-2', auth)).status).toBe(403);
  });

  test('every decision reaches decisionLog', async () => {
    await call(host(), 'GET', '/users/6', await bearer({ role: 'user', userId: [1] }));
    const { events } = await host().calls();
    expect(events.at(-1)).toMatchObject({ operation: 'GET /users/{userId}', input: { role: 'user' }, result: { allow: false, reasons: ['read:own needs ownership of path parameter userId'] } });
  });
});

describe('at the default position (3, after request validation)', () => {
  const host = withHost({ ...standard, position: 3, requestValidation: true });
  test('decides the same', async () => {
    const auth = await bearer({ role: 'user', userId: [1, 3, 5] });
    expect((await call(host(), 'GET', '/users/3', auth)).status).toBe(200);
    expect((await call(host(), 'GET', '/users/2', auth)).status).toBe(403);
  });
});

describe('without a verified payload the caller is anonymous, and a token is never decoded unverified', () => {
  // The example declares anonymous: {}; here anonymous may also list users, so the anonymous read shows.
  const acl = { bearerAuth: { ...(load(readFileSync(PERMISSIONS, 'utf8')) as object), anonymous: { '/users': { 'read:any': ['*'] } } } };
  const disabled = withHost({ ...standard, securityDisabled: true, acl });
  const before = withHost({ ...standard, position: 1, acl });

  test.each([
    ['security.disable: true', disabled],
    ['BearerJWT placed before the security handler', before],
  ])('%s', async (_name, host) => {
    const admin = await bearer({ role: 'admin' });
    expect((await call(host(), 'GET', '/users', admin)).body).toMatchObject({ role: 'anonymous' });
    expect((await call(host(), 'GET', '/users/4', admin)).status).toBe(403);
    expect((await call(host(), 'DELETE', '/users/4', admin)).status).toBe(403);
  });
});

describe('the security handler alone, without BearerJWT', () => {
  const withCustom = withHost({ ...standard, position: null });
  const without = withHost({ ...standard, position: null, customHandler: false });

  test('verifies and lets the host route; jwtErrorHandler turns failures into 401 with the JSON body every adapter answers with', async () => {
    expect((await call(withCustom(), 'DELETE', '/users/4', await bearer({ role: 'user' }))).status).toBe(200);
    expect(await call(withCustom(), 'DELETE', '/users/4', 'Bearer a.b.c')).toMatchObject({ status: 401, body: { error: 'Unauthorized', message: 'the token is not a well-formed JWT', code: 'ERR_JWS_INVALID' } });
  });

  test('without jwtErrorHandler the host answers its own 500 for a JsonWebTokenError (why the README says to set it)', async () => {
    expect((await call(without(), 'DELETE', '/users/4', 'Bearer a.b.c')).status).toBe(500);
    expect((await call(without(), 'DELETE', '/users/4', 'Basic x')).status).toBe(401);
  });
});

describe('configuration sources', () => {
  const withXAcl = join(work, 'x-acl-config.yaml');
  const document = load(readFileSync(OPENAPI, 'utf8')) as { components: { securitySchemes: { bearerAuth: Record<string, unknown> } } };
  document.components.securitySchemes.bearerAuth['x-acl-config'] = { roleBinding: 'groups', acl: { bearerAuth: PERMISSIONS } };
  writeFileSync(withXAcl, dump(document));
  const fromDocument = withHost({ openapi: withXAcl, jwt: HS256, position: 2, customHandler: true });
  const useWins = withHost({ openapi: withXAcl, jwt: HS256, position: 2, customHandler: true, roleBinding: 'role', acl: { bearerAuth: { admin: { '/users': { 'read:any': ['*'] } } } } });

  test('x-acl-config in the security scheme: ACL file and roleBinding', async () => {
    expect((await call(fromDocument(), 'DELETE', '/users/4', await bearer({ groups: 'admin' }))).status).toBe(200);
    expect((await call(fromDocument(), 'DELETE', '/users/4', await bearer({ groups: 'user' }))).status).toBe(403);
  });

  test('the use() config wins over x-acl-config', async () => {
    expect((await call(useWins(), 'GET', '/users', await bearer({ role: 'admin' }))).status).toBe(200);
    expect((await call(useWins(), 'DELETE', '/users/4', await bearer({ role: 'admin' }))).status).toBe(403);
  });
});

describe('x-acl-config holding the permission declaration itself, as @oas-tools/auth 1.1.0 documents it', () => {
  const withDeclaration = (declaration: unknown) => {
    const file = join(work, `declaration-${Math.random().toString(36).slice(2)}.yaml`);
    const document = load(readFileSync(OPENAPI, 'utf8')) as { components: { securitySchemes: { bearerAuth: Record<string, unknown> } } };
    document.components.securitySchemes.bearerAuth['x-acl-config'] = declaration;
    writeFileSync(file, dump(document));
    return file;
  };
  const declared = withDeclaration({ anonymous: {}, user: { 'users/{userId}': { 'read:own': ['*', '!password'] } }, admin: { $extend: ['user'], '/users': { 'read:any': ['*'] } } });
  const alone = withHost({ openapi: declared, jwt: HS256, position: 2, customHandler: true });
  // The use() config's declaration is merged onto the document's: a new grant for admin, and
  // user's read:own replaced by read:any.
  const merged = withHost({ openapi: declared, jwt: HS256, position: 2, customHandler: true, acl: { bearerAuth: { user: { '/users/{userId}': { 'read:any': ['name'] } }, admin: { '/users/{userId}': { 'delete:any': ['*'] } } } } });

  test('alone: it decides as the same declaration given to use()', async () => {
    const user = await bearer({ role: 'user', userId: [1] });
    expect((await call(alone(), 'GET', '/users/1', user)).status).toBe(200);
    expect((await call(alone(), 'GET', '/users/2', user)).status).toBe(403);
    expect((await call(alone(), 'GET', '/users', await bearer({ role: 'admin' }))).status).toBe(200);
    expect((await call(alone(), 'GET', '/users')).status).toBe(401);
  });

  test("merged under the use() config's declaration: both apply, the use() config wins where both grant", async () => {
    const user = await bearer({ role: 'user', userId: [1] });
    expect((await call(merged(), 'GET', '/users/2', user)).status).toBe(200);
    expect((await call(merged(), 'GET', '/users', await bearer({ role: 'admin' }))).status).toBe(200);
    expect((await call(merged(), 'DELETE', '/users/4', await bearer({ role: 'admin' }))).status).toBe(200);
    expect((await call(merged(), 'DELETE', '/users/4', user)).status).toBe(403);
  });

  test.each([
    ['an unknown path in the document', withDeclaration({ user: { '/people': { 'read:any': ['*'] } } }), undefined, /<x-acl-config of bearerAuth in the OpenAPI document> at .*\/people is not a path of the OpenAPI document/],
    ['an unknown action after the merge', withDeclaration({ user: { '/users': { 'read:any': ['*'] } } }), { bearerAuth: { user: { '/users': { 'list:any': ['*'] } } } }, /<x-acl-config of bearerAuth in the OpenAPI document, merged with <inline ACL>> at .*unknown action "list"/],
    ['the configuration form naming another scheme', withDeclaration({ acl: { otherAuth: PERMISSIONS } }), undefined, /the x-acl-config of bearerAuth declares the ACL of otherAuth/],
    ['a value that is no object', withDeclaration('./permissions.yaml'), undefined, /x-acl-config is not an object/],
  ])('%s stops start-up with the ConfigError', async (_name, openapi, acl, message) => {
    const { code, output } = await failedStart({ openapi, jwt: HS256, position: 2, customHandler: true, acl });
    expect(code).toBe(1);
    expect(output).toMatch(message);
  });
});

describe('roleBinding and checkOwnership', () => {
  const bound = withHost({ ...standard, roleBinding: 'groups' });
  const even = withHost({ ...standard, checkOwnership: 'even' });
  const throwing = withHost({ ...standard, checkOwnership: 'throws' });
  const yes = withHost({ ...standard, checkOwnership: 'yes' });

  test('roleBinding: the role comes from the named claim, a list of roles unions their grants', async () => {
    expect((await call(bound(), 'DELETE', '/users/4', await bearer({ groups: ['user', 'admin'] }))).status).toBe(200);
    const withoutRole = await call(bound(), 'GET', '/users/4', await bearer({ userId: 4 }));
    expect(withoutRole).toMatchObject({ status: 403, body: { error: 'Forbidden', message: 'the token has no role claim (groups, nor role), so the caller is anonymous; no role of the caller is granted read on /users/{userId}', code: 'ERR_SVCGATE_FORBIDDEN' } });
    expect((await call(bound(), 'GET', '/users/4', await bearer({ groups: 7 }))).status).toBe(403);
  });

  test('checkOwnership decides ownership instead of the claims', async () => {
    const auth = await bearer({ role: 'user', userId: [3] });
    expect((await call(even(), 'GET', '/users/2', auth)).status).toBe(200);
    expect((await call(even(), 'GET', '/users/3', auth)).status).toBe(403);
  });

  test('a throwing checkOwnership, or one answering "yes", is 403 and never 500', async () => {
    const auth = await bearer({ role: 'user' });
    expect((await call(throwing(), 'GET', '/users/2', auth)).status).toBe(403);
    expect((await call(yes(), 'GET', '/users/2', auth)).status).toBe(403);
  });
});

describe('serialization rules through the host: arrays, label, matrix, bound query lists', () => {
  const file = join(work, 'styles.yaml');
  const param = (name: string, extra: Record<string, unknown>) => ({ name, in: 'path', required: true, ...extra });
  const get = (operationId: string, parameters: unknown[]) => ({ 'x-router-controller': 'stylesController', get: { operationId, parameters, responses: { 200: { description: 'ok' } } } });
  writeFileSync(
    file,
    dump({
      openapi: '3.0.3',
      info: { title: 'styles', version: '1' },
      security: [{ bearerAuth: [] }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      paths: {
        '/batch/{ids}': get('getBatch', [param('ids', { 'x-acl-binding': 'items', schema: { type: 'array', items: { type: 'integer' } } })]),
        '/label/{id}': get('getLabel', [param('id', { 'x-acl-binding': 'items', style: 'label', schema: { type: 'integer' } })]),
        '/matrix/{id}': get('getMatrix', [param('id', { 'x-acl-binding': 'items', style: 'matrix', schema: { type: 'integer' } })]),
        '/search': get('search', [{ name: 'item', in: 'query', 'x-acl-binding': 'items', schema: { type: 'array', items: { type: 'integer' } } }]),
      },
    }),
  );
  const owner = { user: { '/batch/{ids}': { 'read:own': ['*'] }, '/label/{id}': { 'read:own': ['*'] }, '/matrix/{id}': { 'read:own': ['*'] }, '/search': { 'read:own': ['*'] } } };
  const host = withHost({ openapi: file, jwt: HS256, position: 2, customHandler: true, acl: { bearerAuth: owner } });

  test.each([
    ['/batch/1,3', 200],
    ['/batch/3,4', 403],
    ['/label/.05', 200],
    ['/label/.2', 403],
    ['/matrix/;id=3', 200],
    ['/matrix/;id=4', 403],
    ['/search?item=1&item=5', 200],
    ['/search?item=1&item=6', 403],
    ['/search', 403],
  ])('%s -> %d for a token whose items claim is [1, 3, 5]', async (path, status) => {
    const response = await fetch(`${host().url}${path}`, { headers: { authorization: await bearer({ role: 'user', items: [1, 3, 5] }) } });
    expect(response.status).toBe(status);
  });
});

describe('bad configurations stop start-up with the ConfigError', () => {
  test.each([
    ['an ACL naming an unknown path', { acl: { bearerAuth: { user: { '/people/{id}': { 'read:own': ['*'] } } } } }, /ConfigError: .*\/people\/\{id\} is not a path of the OpenAPI document/],
    ['an unknown action', { acl: { bearerAuth: { user: { '/users': { 'list:any': ['*'] } } } } }, /unknown action "list"/],
    ['a missing ACL file', { acl: { bearerAuth: '/nowhere/acl.yaml' } }, /\/nowhere\/acl\.yaml at \$: cannot read the ACL \(ENOENT\)/],
    ['no ACL at all', { acl: undefined }, /no permission declaration is given/],
    ['an ACL for a scheme the document lacks', { acl: { apiKey: {} } }, /the document has no security scheme apiKey/],
    ['a cyclic $extend', { acl: { bearerAuth: { a: { $extend: ['b'] }, b: { $extend: ['a'] } } } }, /cyclic \$extend: a -> b -> a/],
  ])('%s', async (_name, override, message) => {
    const { code, output } = await failedStart({ ...standard, ...override });
    expect(code).toBe(1);
    expect(output).toMatch(message);
  });
});

describe('the JWT pitfall list through the host: every case 401, never 500, no controller', () => {
  const hmac = withHost(standard);
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
  // No audience check, on purpose: the pitfalls' tokens carry no aud, and each must be refused for its own trick.
  const rsa = withHost({ ...standard, jwt: { issuer: ISSUER, secret: pem, algorithms: ['RS256'], audience: false } });

  async function statuses(host: OasHost, cases: Pitfall[]) {
    const result: Record<string, number> = {};
    for (const pitfall of cases) result[pitfall.name] = (await call(host, 'DELETE', `/users/1${pitfall.query ? `?${pitfall.query}` : ''}`, pitfall.authorization)).status;
    return result;
  }

  test('HMAC key', async () => {
    const cases = await hmacPitfalls();
    expect(await statuses(hmac(), cases)).toEqual(Object.fromEntries(cases.map((pitfall) => [pitfall.name, 401])));
    expect((await hmac().calls()).calls).toEqual([]);
  });

  test('RSA key', async () => {
    const good = await new SignJWT({ iss: ISSUER, role: 'admin' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('5m').sign(privateKey);
    expect((await call(rsa(), 'DELETE', '/users/1', `Bearer ${good}`)).status).toBe(200);
    const cases = await rsaPitfalls(publicKey, pem);
    expect(await statuses(rsa(), cases)).toEqual(Object.fromEntries(cases.map((pitfall) => [pitfall.name, 401])));
    expect((await rsa().calls()).calls).toEqual(['deleteUser']);
  });
});
