import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { installPackedProject } from '../helpers/packed-project';

// Express is a peer dependency. A project installed with --omit=peer (or npm 6, or
// legacy-peer-deps) has none: every entry point still loads, the parts that need no Express work,
// and building an Express app (SvcApi, a permission suite) says what is missing and how to fix it,
// instead of Node's "Cannot find module 'express'" from inside svcgate at import time.
const ROOT = join(__dirname, '../..');
let project: string;

beforeAll(() => {
  project = installPackedProject('missing-peer', [], ['--omit=peer']);
  for (const file of ['openapi.yaml', 'permissions.yaml']) cpSync(join(ROOT, 'examples/quickstart', file), join(project, file));
}, 300_000);

afterAll(() => rmSync(dirname(project), { recursive: true, force: true }));

// The timeout: a script whose server did start (the regression this file guards against) would
// otherwise keep its process, and jest, alive.
const node = (script: string) => spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8', timeout: 60_000 });

test('the project has no express', () => {
  expect(existsSync(join(project, 'node_modules/express'))).toBe(false);
});

test('every entry point loads without express, from ESM and CommonJS', () => {
  const out = node(`
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const loaded = {};
    for (const entry of ['svcgate', 'svcgate/policy', 'svcgate/auth', 'svcgate/svc', 'svcgate/fleet', 'svcgate/testing']) {
      loaded[entry] = [typeof (await import(entry)).ConfigError, typeof require(entry).ConfigError];
    }
    // svcgate/list throws no ConfigError (its errors are ListPlanErrors).
    loaded['svcgate/list'] = [typeof (await import('svcgate/list')).toSql, typeof require('svcgate/list').toSql];
    console.log(JSON.stringify(loaded));
  `);
  expect(out.stderr).toBe('');
  expect(Object.values(JSON.parse(out.stdout) as Record<string, string[]>)).toEqual(Array(7).fill(['function', 'function']));
});

test('the policy decides without express', () => {
  const out = node(`
    import { compileAcl } from 'svcgate/policy';
    import { bearerJwt } from 'svcgate/auth';
    bearerJwt({ issuer: 'https://issuer.example', audience: 'https://api.example', secret: 'a'.repeat(32) });
    console.log(typeof compileAcl);
  `);
  expect(out.stderr).toBe('');
  expect(out.stdout.trim()).toBe('function');
});

test('building a SvcApi app is a MissingPeerError that says to install express', () => {
  const out = node(`
    import { MissingPeerError, SvcApi, SvcContainer } from 'svcgate';
    class StatusService { getStatus() { return { ok: true }; } }
    const api = new SvcApi().from(new SvcContainer().ofLocal(StatusService));
    console.log(JSON.stringify(Object.keys(api.openapi().paths)));
    try {
      await api.listen(0);
      console.log('listened');
    } catch (error) {
      console.log(JSON.stringify({ instance: error instanceof MissingPeerError, name: error.name, code: error.code, peer: error.peer, message: error.message }));
    }
  `);
  expect(out.stderr).toBe('');
  const [paths, failure] = out.stdout.trim().split('\n');
  expect(JSON.parse(paths!)).toEqual(['/api/status-service/get-status']);
  expect(JSON.parse(failure!)).toEqual({
    instance: true,
    name: 'MissingPeerError',
    code: 'ERR_SVCGATE_MISSING_PEER',
    peer: 'express',
    message: 'SvcApi needs express (^4.17.0 || ^5.0.0), a peer dependency of svcgate, and it is not installed. Fix: npm install express',
  });
});

test('svcgate audit works without express; svcgate test says what is missing in one line, exit 2', () => {
  const audit = spawnSync(join(project, 'node_modules/.bin/svcgate'), ['audit', '--openapi', 'openapi.yaml', '--acl', 'permissions.yaml'], { cwd: project, encoding: 'utf8' });
  expect(audit.status).toBe(0);
  expect(audit.stdout).toMatch(/GET \/users\/\{userId\}\s+any\s+-\s+own/);
  writeFileSync(
    join(project, 'suite.yaml'),
    'openapi: openapi.yaml\nacl: permissions.yaml\nprincipals: { admin: { claims: { role: admin } } }\ntests:\n  - { name: admin reads, principal: admin, request: { method: GET, path: /users/1 }, expect: { status: 200 } }\n',
  );
  const suite = spawnSync(join(project, 'node_modules/.bin/svcgate'), ['test', 'suite.yaml'], { cwd: project, encoding: 'utf8' });
  expect(suite.status).toBe(2);
  expect(suite.stderr).toBe(
    'svcgate: A permission suite (svcgate test, runPermissionSuite) needs express (^4.17.0 || ^5.0.0), a peer dependency of svcgate, and it is not installed. Fix: npm install express\n',
  );
});
