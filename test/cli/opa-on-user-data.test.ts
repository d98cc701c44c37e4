import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Evaluator, type DataDocument, type PolicyInput } from '../../src/policy';

// What the README promises users: `svcgate build` output, queried and tested with the real `opa`,
// gives the decisions policy.wasm gives.
const ROOT = join(__dirname, '../..');
const EXAMPLE = join(ROOT, 'examples/users-api');
const OPA = execFileSync('bash', [join(ROOT, 'scripts/install-opa.sh'), '--find'], { encoding: 'utf8' }).trim();
const POLICY = join(ROOT, 'policies/authz.rego');
const out = mkdtempSync(join(tmpdir(), 'svcgate-opa-'));
let data: DataDocument;

beforeAll(() => {
  execFileSync(process.execPath, [join(ROOT, 'dist/cjs/cli/main.js'), 'build', '--openapi', join(EXAMPLE, 'openapi.yaml'), '--acl', join(EXAMPLE, 'permissions.yaml'), '--out', out]);
  data = (JSON.parse(readFileSync(join(out, 'data.json'), 'utf8')) as { svcgate: { acl: DataDocument } }).svcgate.acl;
});

const inputs: [string, PolicyInput][] = [
  ['owner reads', { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['3'] }, claims: { 'path:userId': ['1', '3'] } }],
  ['other user', { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['2'] }, claims: { 'path:userId': ['1'] } }],
  ['admin deletes', { operation: 'DELETE /users/{userId}', role: ['admin'], params: { 'path:userId': ['2'] } }],
  ['anonymous lists', { operation: 'GET /users' }],
  ['public status', { operation: 'GET /status', role: 42 }],
];

test.each(inputs)('opa eval agrees with policy.wasm: %s', async (_name, input) => {
  const inputFile = join(out, 'input.json');
  writeFileSync(inputFile, JSON.stringify(input));
  const result = JSON.parse(execFileSync(OPA, ['eval', '-f', 'json', '-d', POLICY, '-d', join(out, 'data.json'), '-i', inputFile, 'data.svcgate.authz.decision'], { encoding: 'utf8' }));
  const evaluator = await Evaluator.create(data);
  expect(result.result[0].expressions[0].value).toEqual(evaluator.evaluate(input));
});

test('a user-written Rego test runs against the shipped policy and the built data', () => {
  const testFile = join(out, 'myapi_test.rego');
  writeFileSync(
    testFile,
    `package myapi_test

import data.svcgate.authz

test_user_reads_own_profile if {
	authz.decision.allow with input as {"operation": "GET /users/{userId}", "role": "user", "params": {"path:userId": ["1"]}, "claims": {"path:userId": ["1"]}}
}

test_user_cannot_delete if {
	not authz.decision.allow with input as {"operation": "DELETE /users/{userId}", "role": "user", "params": {"path:userId": ["1"]}, "claims": {"path:userId": ["1"]}}
}
`,
  );
  const output = execFileSync(OPA, ['test', POLICY, join(out, 'data.json'), testFile], { encoding: 'utf8' });
  expect(output).toContain('PASS: 2/2');
});
