import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { ConfigError } from '../../src/policy';
import { formatSuiteResult, runPermissionSuite, toJUnitXml, type PermissionCaseResult, type PermissionSuite, type PermissionSuiteResult } from '../../src/testing';
import { parseXml } from '../helpers/parse-xml';

// The function form of `svcgate test`, as a project's own test would call it: each case is real
// HTTP to Express + bearerJwtAcl on 127.0.0.1, decided by policy.wasm.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const FIXTURE = join(__dirname, '../fixtures/decided-equals-handled');
const USER135 = { claims: { sub: 'u1', role: 'user', userId: [1, 3, 5], accounts: ['acc-1'] } };

function suite(tests: PermissionSuite['tests'], more: Partial<PermissionSuite> = {}): PermissionSuite {
  return { openapi: 'openapi.yaml', acl: 'permissions.yaml', principals: { user135: USER135, admin: { claims: { role: 'admin' } } }, tests, ...more };
}

const byName = (result: PermissionSuiteResult, name: string): PermissionCaseResult => result.cases.find((found) => found.name === name)!;

describe('runPermissionSuite', () => {
  test("the users API's own suite passes, each case with what the app did", async () => {
    const result = await runPermissionSuite(join(EXAMPLE, 'permissions.test.yaml'));
    expect(result).toMatchObject({ name: 'users API permissions', file: join(EXAMPLE, 'permissions.test.yaml'), ok: true, failed: 0 });
    expect(result.passed).toBe(result.cases.length);
    expect(result.cases.map((found) => found.principal)).toEqual(expect.arrayContaining(['user135', 'admin', 'anonymous', 'roleless']));
    expect(byName(result, 'a user reads a profile they own, without its password [user135]')).toMatchObject({
      passed: true,
      request: { method: 'GET', path: '/api/v1/users/1' },
      actual: { status: 200, allow: true, attributes: ['!password', '*'], role: 'user', possession: 'own', reasons: [] },
      mismatches: [],
    });
    expect(byName(result, 'a user may not read a profile they do not own [user135]').actual).toMatchObject({ status: 403, allow: false, attributes: [], reasons: ['read:own needs ownership of path parameter userId'] });
  });

  test('a failing case says what differs and why the guard decided so; the others still run', async () => {
    const result = await runPermissionSuite(
      suite([
        { name: 'reads user 2', principal: 'user135', request: { method: 'GET', path: '/api/v1/users/2' }, expect: { status: 200, allow: true } },
        { name: 'reads user 3 with the password', principal: 'user135', request: { method: 'GET', path: '/api/v1/users/3' }, expect: { attributes: ['*'] } },
        { name: 'lists users', principals: ['anonymous', 'admin'], request: { method: 'GET', path: '/api/v1/users' }, expectFor: { anonymous: { status: 401 }, admin: { status: 200 } } },
      ]),
      { baseDir: EXAMPLE },
    );
    expect(result).toMatchObject({ name: 'permission suite', file: '<inline permission suite>', ok: false, passed: 2, failed: 2 });
    expect(byName(result, 'reads user 2 [user135]')).toMatchObject({
      passed: false,
      mismatches: ['status: expected 200, got 403', 'allow: expected true, got false'],
      actual: { status: 403, role: 'user', possession: 'own', reasons: ['read:own needs ownership of path parameter userId'] },
    });
    expect(byName(result, 'reads user 3 with the password [user135]').mismatches).toEqual(['attributes: expected ["*"], got ["!password","*"]']);
    expect(byName(result, 'lists users [anonymous]')).toMatchObject({ passed: true, actual: { status: 401, allow: false } });
  });

  test("a token the app refuses is a 401 with the verifier's reason; the suite's headers replace the token", async () => {
    const result = await runPermissionSuite(
      suite(
        [
          { name: 'expired', principal: 'late', request: { method: 'GET', path: '/api/v1/users/1' }, expect: { status: 200 } },
          { name: 'basic credentials', principal: 'user135', request: { method: 'GET', path: '/api/v1/users/1', headers: { Authorization: 'Basic dTpw' } }, expect: { status: 200 } },
        ],
        { principals: { user135: USER135, late: { claims: { role: 'user', userId: [1], exp: 1_000_000 } } } },
      ),
      { baseDir: EXAMPLE },
    );
    const expired = byName(result, 'expired [late]');
    expect(expired.actual).toMatchObject({ status: 401, allow: false, role: null });
    expect(expired.actual.reasons.join(' ')).toMatch(/expired/);
    // Another scheme's credentials are no bearer token: decided as a caller without one.
    expect(byName(result, 'basic credentials [user135]').actual).toMatchObject({ status: 401, reasons: ['no role of the caller is granted read on /users/{userId}'], answer: expect.stringMatching(/bearer/i) });
  });

  test("the body is sent as JSON and read by the guard (an owned body field); the guard's options apply (roleBinding)", async () => {
    const transfer = (accountId: string) => ({ method: 'POST', path: '/api/v1/transfers', body: { accountId, amount: 5 } });
    const result = await runPermissionSuite(
      {
        openapi: 'openapi.yaml',
        acl: 'acl.yaml',
        guard: { roleBinding: 'groups' },
        principals: { owner: { claims: { groups: ['user'], accounts: ['acc-1'] } } },
        tests: [
          { name: 'own account', principal: 'owner', request: transfer('acc-1'), expect: { status: 200 } },
          { name: 'other account', principal: 'owner', request: transfer('acc-2'), expect: { status: 403 } },
        ],
      },
      { baseDir: FIXTURE },
    );
    expect(result.cases.map(({ name, actual }) => [name, actual.status, actual.role])).toEqual([
      ['own account [owner]', 200, 'user'],
      ['other account [owner]', 403, 'user'],
    ]);
    expect(result.cases[1]!.actual.reasons).toEqual([expect.stringMatching(/accountId/)]);
  });

  test('a 404, a 405 and a 400 answered before any decision carry the answer as the reason', async () => {
    const result = await runPermissionSuite(
      suite([
        { name: 'without the servers prefix', principal: 'admin', request: { method: 'GET', path: '/users/1' }, expect: { status: 404 } },
        { name: 'a method the path does not declare', principal: 'admin', request: { method: 'PATCH', path: '/api/v1/users' }, expect: { status: 405 } },
        { name: 'twice', principal: 'user135', request: { method: 'GET', path: '/api/v1/transfers?accountId=acc-1&accountId=acc-1' }, expect: { status: 400 } },
      ]),
      { baseDir: EXAMPLE },
    );
    expect(result.ok).toBe(true);
    expect(result.cases[0]!.actual.reasons).toEqual(['no operation of the API matches GET /users/1']);
    expect(result.cases[1]!.actual.reasons).toEqual(['/api/v1/users answers GET, HEAD, POST, not PATCH']);
    expect(result.cases[2]!.actual.reasons).toEqual([expect.stringMatching(/accountId/)]);
  });
});

describe('a bad suite is a ConfigError naming the file, the place in it and the fix', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-suite-'));
  const request = { method: 'GET', path: '/api/v1/users/1' };
  const ok = { name: 'reads', principal: 'user135', request, expect: { status: 200 as const } };

  test.each<[string, unknown, string, RegExp, RegExp]>([
    ['an unknown principal', { tests: [{ ...ok, principal: 'bob' }] }, '$.tests[0].principal', /no principal is named "bob"/, /declare it under principals/],
    ['a status the guard never answers', { tests: [{ ...ok, expect: { status: 302 } }] }, '$.tests[0].expect.status', /status must be one of 200, 400, 401, 403, 404, 405/, /expect: \{ status: 403 \}/],
    ['allow and status that contradict', { tests: [{ ...ok, expect: { allow: true, status: 403 } }] }, '$.tests[0].expect', /allow: true is status 200/, /expect:/],
    ['attributes on a deny', { tests: [{ ...ok, expect: { status: 403, attributes: ['*'] } }] }, '$.tests[0].expect', /granted no attributes/, /expect:/],
    ['nothing expected', { tests: [{ ...ok, expect: {} }] }, '$.tests[0].expect', /needs allow, status or attributes/, /expect:/],
    ['a path with a space', { tests: [{ ...ok, request: { method: 'GET', path: '/api/v1/users/1 2' } }] }, '$.tests[0].request.path', /percent-encode/, /request: \{ method: GET, path:/],
    ['a Content-Length header, which could leave the request unanswered', { tests: [{ ...ok, request: { ...request, headers: { 'Content-Length': '50' } } }] }, '$.tests[0].request.headers["Content-Length"]', /the runner frames the request/, /request:/],
    ['an unknown method', { tests: [{ ...ok, request: { method: 'FETCH', path: '/' } }] }, '$.tests[0].request.method', /method must be one of GET/, /request:/],
    ['a misspelt key', { tests: [{ ...ok, expected: { status: 200 } }] }, '$.tests[0]', /Unrecognized key: "expected"/, /each test as \{ name, principal, request/],
    ['expectFor of a principal not in the test', { tests: [{ ...ok, expectFor: { admin: { status: 200 } } }] }, '$.tests[0].expectFor.admin', /not a principal of this test/, /list it in the test's principals/],
    ['a principal with nothing expected', { tests: [{ name: 'x', principals: ['user135', 'admin'], request, expectFor: { admin: { status: 200 } } }] }, '$.tests[0]', /nothing is expected for principal "user135"/, /expectFor entry/],
    ['a principal name with a control character', { principals: { 'bad\u001bname': {} }, tests: [ok] }, '$.principals["bad\\u001bname"]', /a principal name must not hold control or format characters/, /write principals as/],
    ['anonymous with claims', { principals: { anonymous: { claims: { role: 'user' } } }, tests: [ok] }, '$.principals.anonymous', /built-in principal that sends no token/, /another name/],
    ['no tests', { tests: [] }, '$.tests', /at least one test/, /each test as/],
    ['tests that are no list', { tests: 'all' }, '$.tests', /tests must be a list of tests/, /each test as/],
    ['no openapi', { openapi: undefined }, '$.openapi', /openapi must be the path/, /a suite is \{ openapi, acl/],
    ['a bad role claim path', { guard: { roleBinding: 'a..b' }, tests: [ok] }, '$.guard.roleBinding', /roleBinding/, /bearerJwtAcl's/],
  ])('%s', async (_what, change, path, problem, fix) => {
    const file = join(dir, 'suite.yaml');
    writeFileSync(file, dump({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: join(EXAMPLE, 'permissions.yaml'), principals: { user135: USER135, admin: { claims: { role: 'admin' } } }, ...(change as object) }));
    const error = await runPermissionSuite(file).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ code: 'ERR_SVCGATE_CONFIG', file, path });
    expect((error as ConfigError).problem).toMatch(problem);
    expect((error as ConfigError).fix).toMatch(fix);
  });

  test("a bad ACL is the ACL's ConfigError, found before any request is sent", async () => {
    const acl = join(dir, 'acl.yaml');
    writeFileSync(acl, dump({ user: { '/nowhere': { 'read:any': ['*'] } } }));
    const error = await runPermissionSuite(suite([ok], { acl }), { baseDir: EXAMPLE }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).file).toBe(acl);
  });
});

describe('the reports of a result', () => {
  // Reasons and answers can carry claim values and request text: anything a string can hold.
  const awkward = 'a & b <c> "d" \'e\' \u0000\u001b[31m \ud800 \u202e \ufffe \u{1f600}';
  const result: PermissionSuiteResult = {
    name: 'suite',
    file: '/x/suite.yaml',
    ok: false,
    passed: 0,
    failed: 1,
    startedAt: '2026-11-26T18:30:02.123Z',
    durationMs: 12,
    cases: [
      {
        name: 'case [p]',
        test: 'case',
        principal: 'p',
        request: { method: 'GET', path: '/x' },
        passed: false,
        expected: { status: 200 },
        actual: { status: 403, allow: false, attributes: [], role: null, possession: null, reasons: [awkward] },
        mismatches: ['status: expected 200, got 403'],
        durationMs: 1,
      },
    ],
  };

  test('the JUnit report stays well-formed XML: markup escaped, characters XML cannot hold replaced by U+FFFD', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svcgate-junit-')), 'report.xml');
    writeFileSync(file, toJUnitXml(result));
    const failure = (await parseXml(file)).children[0]!.children[0]!.children[0]!;
    expect(failure.text.split('\n').at(-1)).toBe('reason: a & b <c> "d" \'e\' \ufffd\ufffd[31m \ufffd \u202e \ufffd \u{1f600}');
  });

  test('the console report shows control and format characters as \\uXXXX instead of passing them to the terminal', () => {
    expect(formatSuiteResult(result)).toContain('      reason: a & b <c> "d" \'e\' \\u0000\\u001b[31m \ud800 \\u202e \ufffe \u{1f600}\n');
  });
});
