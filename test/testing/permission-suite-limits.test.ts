import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/policy';
import { runPermissionSuite } from '../../src/testing';

// Small suite files that ask for a lot: YAML aliases repeat a list of principals in every test, or
// one long string in every request. Each is refused as a ConfigError before any request is sent.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const dir = mkdtempSync(join(tmpdir(), 'svcgate-suite-limits-'));

function suiteFile(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, [`openapi: ${join(EXAMPLE, 'openapi.yaml')}`, `acl: ${join(EXAMPLE, 'permissions.yaml')}`, ...lines, ''].join('\n'));
  return file;
}

async function refusal(file: string): Promise<ConfigError> {
  const error = await runPermissionSuite(file).catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).file).toBe(file);
  return error as ConfigError;
}

test('a list of 101 principals repeated by an alias in 100 tests (10,100 cases) is refused', async () => {
  const names = Array.from({ length: 101 }, (_, index) => `p${index}`);
  const file = suiteFile('cases.yaml', [
    'principals:',
    ...names.map((name) => `  ${name}: {}`),
    'tests:',
    `  - { name: t0, principals: &all [${names.join(', ')}], request: &r { method: GET, path: /api/v1/users/1 }, expect: &e { status: 401 } }`,
    ...Array.from({ length: 99 }, (_, index) => `  - { name: t${index + 1}, principals: *all, request: *r, expect: *e }`),
  ]);
  const error = await refusal(file);
  expect(error.path).toBe('$.tests[99]');
  expect(error.problem).toMatch(/more than 10000 cases/);
  expect(error.fix).toMatch(/split it/);
});

test('a path longer than the server reads is refused, not sent and reported as a 431', async () => {
  const file = suiteFile('path.yaml', ['tests:', `  - { name: long, principal: anonymous, request: { method: GET, path: /api/v1/users/${'1'.repeat(9000)} }, expect: { status: 404 } }`]);
  const error = await refusal(file);
  expect(error.path).toBe('$.tests[0].request');
  expect(error.problem).toMatch(/path and headers take more than 8192 bytes/);
});

test('headers that together pass the limit are refused', async () => {
  const headers = Array.from({ length: 10 }, (_, index) => `X-H${index}: ${'v'.repeat(1000)}`).join(', ');
  const file = suiteFile('headers.yaml', ['tests:', `  - { name: many, principal: anonymous, request: { method: GET, path: /api/v1/users/1, headers: { ${headers} } }, expect: { status: 401 } }`]);
  expect((await refusal(file)).path).toBe('$.tests[0].request');
});

test('a body larger than the app reads, as text or as JSON made of one aliased string, is refused', async () => {
  const text = suiteFile('text-body.yaml', ['tests:', `  - { name: big, principal: anonymous, request: { method: PUT, path: /api/v1/users/1, body: "${'x'.repeat(110 * 1024)}" }, expect: { status: 401 } }`]);
  const textError = await refusal(text);
  expect(textError.path).toBe('$.tests[0].request.body');
  expect(textError.problem).toMatch(/body takes more than 102400 bytes/);

  const json = suiteFile('json-body.yaml', [
    'tests:',
    `  - { name: big, principal: anonymous, request: { method: PUT, path: /api/v1/users/1, body: { a: &s "${'x'.repeat(30 * 1024)}", b: *s, c: *s, d: *s } }, expect: { status: 401 } }`,
  ]);
  expect((await refusal(json)).path).toBe('$.tests[0].request.body');
});

test("a principal's claims larger than a token in a header can carry are refused", async () => {
  const file = suiteFile('claims.yaml', [
    'principals:',
    `  big: { claims: { role: user, note: &n "${'n'.repeat(2000)}", more: [*n, *n] } }`,
    'tests:',
    '  - { name: reads, principal: big, request: { method: GET, path: /api/v1/users/1 }, expect: { status: 403 } }',
  ]);
  const error = await refusal(file);
  expect(error.path).toBe('$.principals.big.claims');
  expect(error.problem).toMatch(/claims take more than 4096 bytes/);

  // Counted in bytes as they are sent: 1,500 characters of three bytes each.
  const wide = suiteFile('wide-claims.yaml', ['principals:', `  wide: { claims: { role: user, note: "${'€'.repeat(1500)}" } }`, 'tests:', '  - { name: reads, principal: wide, request: { method: GET, path: /api/v1/users/1 }, expect: { status: 403 } }']);
  expect((await refusal(wide)).path).toBe('$.principals.wide.claims');
});

test('a suite within the limits runs', async () => {
  const file = suiteFile('fits.yaml', [
    'principals: { admin: { claims: { role: admin, note: "' + 'n'.repeat(3000) + '" } } }',
    'tests:',
    `  - { name: reads, principal: admin, request: { method: GET, path: /api/v1/users/1, headers: { X-Note: "${'v'.repeat(7000)}" } }, expect: { status: 200 } }`,
  ]);
  const result = await runPermissionSuite(file);
  expect(result.cases.map(({ actual }) => actual.status)).toEqual([200]);
});

test('an object suite whose body holds itself is a ConfigError, not a stack overflow', async () => {
  const body: Record<string, unknown> = { name: 'x' };
  body.self = body;
  const error = await runPermissionSuite({ openapi: 'openapi.yaml', acl: 'permissions.yaml', tests: [{ name: 'loop', principal: 'anonymous', request: { method: 'PUT', path: '/api/v1/users/1', body }, expect: { status: 401 } }] }, { baseDir: EXAMPLE }).catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ConfigError);
  expect(error).toMatchObject({ path: '$.tests[0].request.body' });
});
