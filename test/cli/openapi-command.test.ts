import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import { SVCGATE_BIN, svcgate } from '../helpers/svcgate-cli';

// `svcgate openapi --svc <module>` (issue 29, section 4): a project's own module file, importing
// svcgate by its package name, in a temp folder; the document fed to `svcgate bundle` in one shell
// pipeline, as the docs write it.
const ROOT = join(__dirname, '../..');
const project = mkdtempSync(join(tmpdir(), 'svcgate-openapi-'));
mkdirSync(join(project, 'node_modules'));
symlinkSync(ROOT, join(project, 'node_modules/svcgate'), 'dir');
const sh = promisify(execFile);

const SERVICES = `
class AccountService {
  getAccount({ accountId }) { return { accountId, balance: 10 }; }
  updateAccount({ accountId, balance }) { return { accountId, balance }; }
}
class StatusService {
  getStatus() { return { ok: true }; }
}`;

writeFileSync(
  join(project, 'api.js'),
  `const { SvcApi, SvcContainer } = require('svcgate/svc');
${SERVICES}
// What svcAcl is given as owners, exported so that the document marks the owned fields.
exports.owners = { 'accountService.getAccount': { accountId: 'accounts' } };
exports.api = new SvcApi().from(new SvcContainer().ofLocal(AccountService).andLocal(StatusService));
`,
);
writeFileSync(
  join(project, 'api.mjs'),
  `import { SvcContainer } from 'svcgate/svc';
${SERVICES}
export default new SvcContainer().ofLocal(AccountService).andLocal(StatusService);
// A connection the module opens: the CLI must not wait for it.
setInterval(() => {}, 60_000);
`,
);
writeFileSync(
  join(project, 'app.cjs'),
  `const { SvcApi, SvcContainer } = require('svcgate/svc');
${SERVICES}
const container = new SvcContainer().ofLocal(StatusService);
module.exports = { container, app: new SvcApi().from(container), port: 3000 };
`,
);
writeFileSync(join(project, 'not-an-api.mjs'), 'export const port = 3000;\nexport default function start() {}\n');
writeFileSync(join(project, 'throws.cjs'), "throw new Error('DATABASE_URL is not set');\n");
writeFileSync(
  join(project, 'permissions.json'),
  JSON.stringify({ anonymous: { '/api/status-service/get-status': { 'read:any': ['*'] } }, user: { '/api/account-service/get-account': { 'read:own': ['*'] } } }),
);
const svcgateCommand = `"${process.execPath}" "${SVCGATE_BIN}"`;

test('openapi --svc > api.json && bundle --openapi api.json: one pipeline, and the document decides as svcAcl does', async () => {
  const pipeline = `${svcgateCommand} openapi --svc ./api.js > api.json && ${svcgateCommand} bundle --openapi api.json --acl permissions.json --scheme bearerAuth --strict --out bundle.tar.gz`;
  const { stdout, stderr } = await sh('sh', ['-c', pipeline], { cwd: project, timeout: 60_000 });
  expect(stderr).toBe('');
  expect(stdout).toMatch(/^wrote bundle\.tar\.gz: revision [0-9a-f]{16}, 3 operations, \d+ bytes\n$/);
  const document = JSON.parse(readFileSync(join(project, 'api.json'), 'utf8'));
  expect(Object.keys(document.paths).sort()).toEqual(['/api/account-service/get-account', '/api/account-service/update-account', '/api/status-service/get-status']);
  expect(document.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  expect(document['x-acl-anonymous-default']).toBe('none');
  // The owners the module exports are in the document: own is decided on the accountId argument.
  const explain = (accountId: string) => svcgate('explain', '--openapi', join(project, 'api.json'), '--acl', join(project, 'permissions.json'), '--token-claims', '{"role":"user","accounts":["a1"]}', 'GET', `/api/account-service/get-account?accountId=${accountId}`);
  expect((await explain('a1')).code).toBe(0);
  expect((await explain('a2')).stdout).toContain('decision: DENY\n');
});

test('an ES module whose default export is a SvcContainer, as YAML; a module that keeps a timer does not keep the CLI', async () => {
  const { code, stdout, stderr } = await svcgate('openapi', '--svc', join(project, 'api.mjs'), '--yaml');
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const document = load(stdout) as { openapi: string; paths: Record<string, unknown> };
  expect(document.openapi).toBe('3.1.0');
  expect(Object.keys(document.paths)).toHaveLength(3);
});

test('under another name: the one SvcApi the module exports (before its SvcContainer)', async () => {
  const { code, stdout } = await svcgate('openapi', '--svc', join(project, 'app.cjs'));
  expect(code).toBe(0);
  expect(Object.keys(JSON.parse(stdout).paths)).toEqual(['/api/status-service/get-status']);
});

test('a module without a SvcApi or SvcContainer, a missing module, a module that throws: one formatted line, exit 2', async () => {
  const notApi = await svcgate('openapi', '--svc', join(project, 'not-an-api.mjs'));
  expect(notApi).toMatchObject({ code: 2, stdout: '' });
  expect(notApi.stderr).toBe(
    `svcgate: ${join(project, 'not-an-api.mjs')} at $: the module exports no SvcApi or SvcContainer as api or as its default export (it exports default, port). Fix: export the SvcApi (or the SvcContainer its routes come from) as api or as the default export, e.g. export const api = new SvcApi().from(container); and, when svcAcl is given owners, export them as owners\n`,
  );
  expect(await svcgate('openapi', '--svc', join(project, 'none.js'))).toMatchObject({ code: 2, stderr: `svcgate: ${join(project, 'none.js')} at $: cannot read the SvcApi module (ENOENT). Fix: check the path and the file permissions\n` });
  const throws = await svcgate('openapi', '--svc', join(project, 'throws.cjs'));
  expect(throws.code).toBe(2);
  expect(throws.stderr).toMatch(/^svcgate: \S+throws\.cjs at \$: cannot load the SvcApi module: DATABASE_URL is not set\. Fix: the module must load with node/);
  expect(throws.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(await svcgate('openapi')).toMatchObject({ code: 2, stderr: 'svcgate: --svc <module> is required: a module that exports a SvcApi or SvcContainer (svcgate openapi --help)\n' });
});

test('a module whose top-level await never settles: exit 2 and a line, not exit 0 with an empty document', async () => {
  writeFileSync(join(project, 'never.mjs'), 'export const port = 3000;\nawait new Promise(() => {});\n');
  const { code, stdout, stderr } = await svcgate('openapi', '--svc', join(project, 'never.mjs'));
  expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
  expect(stderr).toBe('svcgate: the command stopped before it finished: what it waited for can never settle (a top-level await in the --svc module that nothing resolves?)\n');
});

test('openapi is in the help', async () => {
  expect((await svcgate('--help')).stdout).toContain('svcgate openapi --svc <module>');
  expect((await svcgate('openapi', '--help')).stdout).toContain('\n  --svc <module>');
});
