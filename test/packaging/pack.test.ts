import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// The packed tarball, installed into an empty folder, used from CommonJS, from ESM and as a bin,
// with a PATH on which there is no `opa`: users need only what the package ships.
const ROOT = join(__dirname, '../..');
const EXAMPLE = join(ROOT, 'examples/users-api');
const PATH = [dirname(process.execPath), '/usr/bin', '/bin'].join(':');
let project: string;

function node(args: string[], input?: string): string {
  return execFileSync(process.execPath, args, { cwd: project, env: { PATH, HOME: project }, input, encoding: 'utf8' });
}

beforeAll(() => {
  const work = mkdtempSync(join(tmpdir(), 'svcgate-pack-'));
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' })) as { filename: string; files: { path: string }[] }[];
  expect(packed!.files.map((file) => file.path)).toEqual(expect.arrayContaining(['dist/policy.wasm', 'dist/cjs/policy/index.js', 'dist/esm/policy.mjs', 'policies/authz.rego']));
  project = join(work, 'app');
  execFileSync('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), '{"name":"app","private":true}');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, packed!.filename)], { cwd: project, stdio: 'pipe' });
}, 180_000);

test('there is no opa on the PATH the checks run with', () => {
  expect(() => execFileSync('sh', ['-c', 'command -v opa'], { env: { PATH } })).toThrow();
});

const decideScript = (load: string) => `
${load}
const data = compileAcl({ openapi: ${JSON.stringify(join(EXAMPLE, 'openapi.yaml'))}, acl: ${JSON.stringify(join(EXAMPLE, 'permissions.yaml'))} });
Evaluator.create(data).then((evaluator) => {
  const decision = evaluator.evaluate({ operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['3'] }, claims: { 'path:userId': ['1', '3', '5'] } });
  console.log(JSON.stringify(decision));
});`;
const expected = { allow: true, attributes: ['!password', '*'], role: 'user', possession: 'own', scopes: [], reasons: [] };

test('require("svcgate/policy") evaluates a decision through the shipped policy.wasm', () => {
  const out = node(['-'], decideScript("const { compileAcl, Evaluator } = require('svcgate/policy');"));
  expect(JSON.parse(out)).toEqual(expected);
});

test('import from "svcgate/policy" evaluates a decision', () => {
  const out = node(['--input-type=module', '-'], decideScript("import { compileAcl, Evaluator } from 'svcgate/policy';"));
  expect(JSON.parse(out)).toEqual(expected);
});

test('every subpath loads from both module systems, sharing one copy of each class', () => {
  const script = `
import { createRequire } from 'node:module';
import * as root from 'svcgate';
import * as policy from 'svcgate/policy';
import * as auth from 'svcgate/auth';
import * as svc from 'svcgate/svc';
import * as testing from 'svcgate/testing';
import * as list from 'svcgate/list';
const require = createRequire(import.meta.url);
const cjs = require('svcgate/policy');
require('svcgate/auth');
require('svcgate/svc');
const issuer = await require('svcgate/testing').createTestIssuer({ alg: 'ES256' });
console.log(JSON.stringify({
  same: cjs.ConfigError === policy.ConfigError && root.Evaluator === policy.Evaluator,
  auth: typeof auth, svc: typeof svc,
  testing: typeof testing.createTestIssuer,
  list: list.toSql({ kind: 'some', anyOf: [{ id: [1, 2] }], attributes: [] }, { dialect: 'postgres', columns: { id: 'id' } }).text,
  sameList: list.ListPlanError === require('svcgate/list').ListPlanError,
  verified: (await issuer.handler()('Bearer ' + (await issuer.sign({ sub: 'u1' })))).sub,
}));`;
  expect(JSON.parse(node(['--input-type=module', '-'], script))).toEqual({ same: true, auth: 'object', svc: 'object', testing: 'function', list: '("id" IN ($1, $2))', sameList: true, verified: 'u1' });
});

test('the svcgate bin runs from the installed package', () => {
  const out = execFileSync(join(project, 'node_modules/.bin/svcgate'), ['audit', '--openapi', join(EXAMPLE, 'openapi.yaml'), '--acl', join(EXAMPLE, 'permissions.yaml'), '--json'], {
    cwd: project,
    env: { PATH },
    encoding: 'utf8',
  });
  expect(JSON.parse(out).operations['DELETE /users/{userId}']).toEqual({ admin: 'any', anonymous: '-', user: '-' });
});

test('a permission suite runs from the installed package: the bin (exit code, JUnit file) and runPermissionSuite from ESM', () => {
  const api = join(project, 'api');
  mkdirSync(api, { recursive: true });
  for (const file of ['openapi.yaml', 'permissions.yaml', 'permissions.test.yaml']) copyFileSync(join(EXAMPLE, file), join(api, file));
  const out = execFileSync(join(project, 'node_modules/.bin/svcgate'), ['test', 'api/permissions.test.yaml', '--junit', 'reports/permissions.xml'], { cwd: project, env: { PATH }, encoding: 'utf8' });
  expect(out).toMatch(/\n15 cases: 15 passed, 0 failed/);
  expect(existsSync(join(project, 'reports/permissions.xml'))).toBe(true);
  const script = "import { runPermissionSuite } from 'svcgate/testing';\nconst result = await runPermissionSuite('api/permissions.test.yaml');\nconsole.log(JSON.stringify({ ok: result.ok, cases: result.cases.length }));";
  expect(JSON.parse(node(['--input-type=module', '-'], script))).toEqual({ ok: true, cases: 15 });
});
