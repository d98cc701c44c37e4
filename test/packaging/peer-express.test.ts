import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { installPackedProject, MODULE_RESOLUTIONS, typeCheckAll, versionOf } from '../helpers/packed-project';

// Express is a peer dependency of svcgate and @types/express an optional one. An @oas-tools/core
// project (Express 4) with the packed tarball installed, as a user sets one up:
// - it has one Express, its own: SvcApi builds its app with it, and `svcgate test` runs on it;
// - without @types/express, a strict project (skipLibCheck: false) that uses svcgate's parts that
//   need no Express type-checks, under every module resolution;
// - with @types/express, svcgate's middleware, api.app and Express-typed interceptors type-check;
// - a stack trace out of svcgate points into its TypeScript sources (source maps).
const ROOT = join(__dirname, '../..');
let project: string;
const SETTINGS = MODULE_RESOLUTIONS;
// The checks without @types/express, started as soon as the project is installed and run side by
// side with each other and with the tests that run the project (each takes 20 to 30 s).
let withoutExpressTypes: Promise<Map<string, string>>;

beforeAll(() => {
  project = installPackedProject('peer-express', [
    `@oas-tools/core@${versionOf('@oas-tools/core')}`,
    `express@${versionOf('express4')}`,
    `typescript@${versionOf('typescript')}`,
    `@types/node@${versionOf('@types/node')}`,
  ]);
  for (const file of ['openapi.yaml', 'permissions.yaml']) cpSync(join(ROOT, 'examples/quickstart', file), join(project, file));
  cpSync(join(ROOT, 'test/fixtures/peer-express'), project, { recursive: true });
  withoutExpressTypes = typeCheckAll(project, SETTINGS.map(([name, settings]) => ({ name: `without-${name}`, files: ['without-express-types.ts'], settings })));
}, 300_000);

afterAll(() => rmSync(dirname(project), { recursive: true, force: true }));


/** Every version of express in the project's tree, as `npm ls express --all --json` lists them. */
function expressVersions(): string[] {
  interface Node {
    version?: string;
    dependencies?: Record<string, Node>;
  }
  const versions = new Set<string>();
  const walk = (node: Node) => {
    for (const [name, child] of Object.entries(node.dependencies ?? {})) {
      if (name === 'express' && child.version !== undefined) versions.add(child.version);
      walk(child);
    }
  };
  walk(JSON.parse(execFileSync('npm', ['ls', 'express', '--all', '--json'], { cwd: project, encoding: 'utf8' })) as Node);
  return [...versions];
}

test('the project has one express, the Express 4 it installed: svcgate brings none of its own', () => {
  expect(expressVersions()).toEqual([versionOf('express4')]);
  expect(existsSync(join(project, 'node_modules/svcgate/node_modules/express'))).toBe(false);
});

test("SvcApi builds its app with the project's Express 4 and serves on it", () => {
  const out = JSON.parse(execFileSync(process.execPath, ['svc-on-express.mjs'], { cwd: project, encoding: 'utf8' })) as Record<string, unknown>;
  expect(out).toEqual({
    projectExpress: versionOf('express4'),
    builtWithProjectExpress: true,
    get: [200, { argument: { orderId: 'o1', 'filter[x]': '1' } }],
    post: [200, { created: 'book' }],
    wrongMethod: [405, 'POST'],
    mounted: [200, { argument: { orderId: 'o2' } }],
  });
});

test("svcgate test runs a permission suite on the project's Express 4", () => {
  mkdirSync(join(project, 'users-api'));
  for (const file of ['openapi.yaml', 'permissions.yaml', 'permissions.test.yaml']) cpSync(join(ROOT, 'examples/users-api', file), join(project, 'users-api', file));
  const out = execFileSync(join(project, 'node_modules/.bin/svcgate'), ['test', 'users-api/permissions.test.yaml'], { cwd: project, encoding: 'utf8' });
  expect(out).toMatch(/\n15 cases: 15 passed, 0 failed/);
});

test('a stack trace out of svcgate points into its TypeScript sources, shipped in the package', () => {
  const script = "require('svcgate/policy').compileAcl({ openapi: { openapi: '3.0.3' }, acl: {} });";
  let stack = '';
  try {
    execFileSync(process.execPath, ['--enable-source-maps', '-e', script], { cwd: project, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    stack = (error as { stderr: string }).stderr;
  }
  const frame = /node_modules\/svcgate\/src\/policy\/[\w/-]+\.ts:\d+:\d+/.exec(stack);
  expect(frame).not.toBeNull();
  expect(existsSync(join(project, frame![0].replace(/:\d+:\d+$/, '')))).toBe(true);
});

describe('types', () => {
  test('the project has no @types/express', () => {
    expect(existsSync(join(project, 'node_modules/@types/express'))).toBe(false);
  });

  test.each(SETTINGS)('without @types/express, moduleResolution %s: svcgate (root and subpaths, SvcApi interceptors) type-checks with skipLibCheck false', async (name) => {
    expect((await withoutExpressTypes).get(`without-${name}`)).toBe('');
  }, 300_000);

  describe('with @types/express', () => {
    // Two settings, not four: each run checks all of @types/node and svcgate's types.
    const WITH = [SETTINGS[0]!, SETTINGS[2]!];
    let withExpressTypes: Promise<Map<string, string>>;
    beforeAll(async () => {
      // Installed only once the checks without it are done, as it changes what they read.
      await withoutExpressTypes;
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `@types/express@${versionOf('@types/express')}`], { cwd: project, stdio: 'pipe' });
      withExpressTypes = typeCheckAll(project, WITH.map(([name, settings]) => ({ name: `with-${name}`, files: ['with-express-types.ts'], settings })));
    }, 300_000);

    test.each(WITH)('moduleResolution %s: app.use(bearerJwtAcl(...)), api.app mounted, Express-typed interceptors, req.auth', async (name) => {
      expect((await withExpressTypes).get(`with-${name}`)).toBe('');
    }, 300_000);
  });
});
