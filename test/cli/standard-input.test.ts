import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SVCGATE_BIN, svcgate } from '../helpers/svcgate-cli';

// `-` for a document option reads it from standard input (issue 29, section 4: svcgate openapi
// --svc feeds svcgate bundle "in one pipeline"), so a shell pipe needs no file between commands.
const ROOT = join(__dirname, '../..');
const EXAMPLE = join(ROOT, 'examples/users-api');
const OPENAPI = join(EXAMPLE, 'openapi.yaml');
const ACL = join(EXAMPLE, 'permissions.yaml');
const project = mkdtempSync(join(tmpdir(), 'svcgate-stdin-'));
mkdirSync(join(project, 'node_modules'));
symlinkSync(ROOT, join(project, 'node_modules/svcgate'), 'dir');
writeFileSync(
  join(project, 'api.js'),
  `const { SvcApi, SvcContainer } = require('svcgate/svc');
class AccountService { getAccount({ accountId }) { return { accountId }; } }
class StatusService { getStatus() { return { ok: true }; } }
exports.owners = { 'accountService.getAccount': { accountId: 'accounts' } };
exports.api = new SvcApi().from(new SvcContainer().ofLocal(AccountService).andLocal(StatusService));
`,
);
writeFileSync(join(project, 'permissions.json'), JSON.stringify({ anonymous: { '/api/status-service/get-status': { 'read:any': ['*'] } }, user: { '/api/account-service/get-account': { 'read:own': ['*'] } } }));
const sh = promisify(execFile);
const svcgateCommand = `"${process.execPath}" "${SVCGATE_BIN}"`;

/** Runs `svcgate ...args` with `input` on its standard input. */
function svcgateWithInput(input: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVCGATE_BIN, ...args], { cwd: project });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

test('openapi --svc | bundle --openapi -: one shell pipeline, no file between the commands', async () => {
  const pipeline = `${svcgateCommand} openapi --svc ./api.js | ${svcgateCommand} bundle --openapi - --acl permissions.json --strict --out bundle.tar.gz`;
  const { stdout, stderr } = await sh('sh', ['-c', pipeline], { cwd: project, timeout: 60_000 });
  expect(stderr).toBe('');
  expect(stdout).toMatch(/^wrote bundle\.tar\.gz: revision [0-9a-f]{16}, 2 operations, \d+ bytes\n$/);
  // The same document as YAML, to explain: owned as svcAcl decides.
  const yaml = await sh('sh', ['-c', `${svcgateCommand} openapi --svc ./api.js --yaml | ${svcgateCommand} explain --openapi - --acl permissions.json --token-claims '{"role":"user","accounts":["a1"]}' GET '/api/account-service/get-account?accountId=a1'`], { cwd: project, timeout: 60_000 });
  expect(yaml.stdout).toContain('decision: ALLOW\n');
});

test('--openapi - and --acl - decide as the files do, JSON or YAML', async () => {
  const byFiles = await svcgate('audit', '--openapi', OPENAPI, '--acl', ACL, '--json');
  expect(byFiles.code).toBe(0);
  expect(await svcgateWithInput(readFileSync(OPENAPI, 'utf8'), 'audit', '--openapi', '-', '--acl', ACL, '--json')).toEqual({ code: 0, stdout: byFiles.stdout, stderr: '' });
  expect(await svcgateWithInput(readFileSync(ACL, 'utf8'), 'audit', '--openapi', OPENAPI, '--acl', '-', '--json')).toEqual({ code: 0, stdout: byFiles.stdout, stderr: '' });
  const widened = JSON.stringify({ anonymous: { '/users': { 'read:any': ['*'] } } });
  const diff = await svcgateWithInput(widened, 'diff', '--openapi', OPENAPI, '--acl', ACL, '--acl-new', '-', '--fail-on', 'widen');
  expect(diff.code).toBe(1);
  expect(diff.stdout).toContain('widened  anonymous on GET /users: - -> any ["*"]; new ACL: anonymous /users read:any ["*"]\n');
});

test('a URL given as a document: none is fetched, and the line says how to give it', async () => {
  const { code, stderr } = await svcgate('audit', '--openapi', 'https://example.com/openapi.yaml', '--acl', ACL);
  expect({ code, stderr }).toEqual({
    code: 2,
    stderr: 'svcgate: --openapi takes a file, not a URL: svcgate fetches no document (download it first, e.g. curl -fo api.yaml <url>, or pipe it: curl -f <url> | svcgate ... --openapi -) (svcgate audit --help)\n',
  });
});

test('standard input once, and its errors named <stdin>: one line, exit 2', async () => {
  expect(await svcgateWithInput('', 'audit', '--openapi', '-', '--acl', '-')).toEqual({ code: 2, stdout: '', stderr: 'svcgate: --openapi and --acl are both -: standard input holds one document; give the others as files (svcgate audit --help)\n' });
  expect(await svcgateWithInput('', 'audit', '--openapi', '-', '--acl', ACL)).toEqual({ code: 2, stdout: '', stderr: 'svcgate: <stdin> at $: the OpenAPI document is empty. Fix: the top level must be an object\n' });
  const truncated = await svcgateWithInput('{"openapi": ', 'audit', '--openapi', '-', '--acl', ACL);
  expect(truncated).toMatchObject({ code: 2, stdout: '' });
  expect(truncated.stderr).toMatch(/^svcgate: <stdin> at \$: invalid JSON at line 1, column 13: .*\. Fix: correct the JSON syntax there\n$/);
  const acl = await svcgateWithInput('user: [', 'audit', '--openapi', OPENAPI, '--acl', '-');
  expect(acl.stderr).toMatch(/^svcgate: <stdin> at \$: invalid YAML at line 2, column 1: .*\. Fix: correct the YAML syntax there\n$/);
});
