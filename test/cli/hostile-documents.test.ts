import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { aliasFanOut, documentFolders, OPENAPI_HEAD, PATHS, refPairs } from '../helpers/hostile-documents';
import { SVCGATE_BIN } from '../helpers/svcgate-cli';

// Issue 27, section 4, as CI runs it: the built bin in a child process, on documents a pull
// request could hold. Today's main took seconds to minutes, or hung, on some of them: each run is
// killed after a minute, so that such a run fails instead of holding up the suite.
const ACL = 'anonymous: {}\nuser:\n  /a:\n    read:any: ["*"]\n';

interface Run {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

function svcgate(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SVCGATE_BIN, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      const failed = error as (Error & { code?: number; signal?: string }) | null;
      resolve({ code: failed ? (typeof failed.code === 'number' ? failed.code : null) : 0, signal: failed?.signal ?? null, stdout, stderr });
    });
  });
}

const folder = documentFolders();

test('svcgate bundle refuses a $ref out of the document folder, and --ref-root names a wider one (main: the token was in the bundle)', async () => {
  const dir = folder({
    'outside/credentials.json': '{"token": "s3cr3t-token"}',
    'api/api.yaml': OPENAPI_HEAD + 'paths:\n  /a:\n    get:\n      operationId: {$ref: "../outside/credentials.json#/token"}\n      responses: {"200": {description: ok}}\n',
    'api/acl.yaml': ACL,
  });
  const out = join(dir, 'bundle.tar.gz');
  const args = ['bundle', '--openapi', join(dir, 'api/api.yaml'), '--acl', join(dir, 'api/acl.yaml'), '--out', out];
  const refused = await svcgate(...args);
  expect(refused).toMatchObject({ code: 2, stdout: '' });
  expect(refused.stderr).toBe(
    `svcgate: ${join(dir, 'api/api.yaml')} at $.paths["/a"].get.operationId.$ref: $ref "../outside/credentials.json#/token" leads outside ${join(dir, 'api')}. Fix: keep the files it refers to inside ${join(dir, 'api')}, or name a folder that holds them all with the refRoot option (--ref-root <dir> in the CLI); without it, file references stay inside the document's folder\n`,
  );
  expect(existsSync(out)).toBe(false);
  const allowed = await svcgate(...args, '--ref-root', dir);
  expect(allowed).toMatchObject({ code: 0, stderr: '' });
  expect(existsSync(out)).toBe(true);
});

test('svcgate build refuses 7 levels of YAML aliases 12 wide by their count (main: 7-13 s and 600 MB, then exit 0)', async () => {
  const dir = folder({ 'api.yaml': OPENAPI_HEAD + PATHS + aliasFanOut(7, 12), 'acl.yaml': ACL });
  const run = await svcgate('build', '--openapi', join(dir, 'api.yaml'), '--acl', join(dir, 'acl.yaml'), '--out', join(dir, 'out'));
  expect(run).toMatchObject({ code: 2, signal: null, stdout: '' });
  expect(run.stderr).toMatch(/^svcgate: .*api\.yaml at \$: the OpenAPI document holds more than 5000000 values \(the limit\), counting each use of a YAML alias or \$ref in full\. Fix: /);
});

test('svcgate audit refuses 30 levels of $ref pairs by their count (main: never ends)', async () => {
  const dir = folder({ 'api.yaml': OPENAPI_HEAD + refPairs(30) + PATHS, 'acl.yaml': ACL });
  const run = await svcgate('audit', '--openapi', join(dir, 'api.yaml'), '--acl', join(dir, 'acl.yaml'));
  expect(run).toMatchObject({ code: 2, signal: null, stdout: '' });
  expect(run.stderr).toMatch(/at \$\.components\.schemas\.s\d+(\.properties)?: this value, with its \$refs resolved, holds more than 5000000 values \(the limit\)/);
});

test('svcgate explain refuses a $ref to a named pipe without waiting for a writer (main: hangs)', async () => {
  const dir = folder({ 'api.yaml': `${OPENAPI_HEAD}paths:\n  /a: {$ref: "pipe.json#/a"}\n`, 'acl.yaml': ACL });
  execFileSync('mkfifo', [join(dir, 'pipe.json')]);
  const run = await svcgate('explain', '--openapi', join(dir, 'api.yaml'), '--acl', join(dir, 'acl.yaml'), 'GET', '/a');
  expect(run).toMatchObject({ code: 2, signal: null, stdout: '' });
  expect(run.stderr).toContain('at $.paths["/a"].$ref: $ref "pipe.json#/a": the referenced document is not a regular file in');
});

test('each command that reads a document lists --ref-root in its help', async () => {
  for (const command of ['build', 'explain', 'audit', 'diff', 'bundle']) {
    const help = await svcgate(command, '--help');
    expect(help.stdout).toContain('\n  --ref-root <dir>');
    expect(help.stdout).toMatch(/^usage: .*\[--ref-root <dir>\]/);
  }
});
