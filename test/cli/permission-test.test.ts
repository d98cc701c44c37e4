import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { parseXml } from '../helpers/parse-xml';
import { svcgate } from '../helpers/svcgate-cli';

// `svcgate test` as CI runs it: the built bin (`npm run build:ts` first), in a child process.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const SUITE = join(EXAMPLE, 'permissions.test.yaml');

describe('svcgate test', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-test-'));

  test("the users API's suite passes: a line per case, a summary, exit 0", async () => {
    const { code, stdout, stderr } = await svcgate('test', SUITE);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('pass  a user reads a profile they own, without its password [user135]: GET /api/v1/users/1 -> 200\n');
    expect(stdout).toContain('pass  a user may not read a profile they do not own [user135]: GET /api/v1/users/2 -> 403\n');
    expect(stdout).toContain('pass  reading a profile, by who asks [anonymous]: GET /api/v1/users/2 -> 401\n');
    expect(stdout).toMatch(/\n\n15 cases: 15 passed, 0 failed \(\d+\.\d\d s\)\n$/);
    expect(stdout).not.toContain('FAIL');
  });

  test('a failing case: exit 1, what differs and the reasons printed, and a JUnit report CI can read', async () => {
    const suite = join(dir, 'failing.yaml');
    writeFileSync(
      suite,
      dump({
        name: 'users & <admins>',
        openapi: join(EXAMPLE, 'openapi.yaml'),
        acl: join(EXAMPLE, 'permissions.yaml'),
        principals: { user135: { claims: { role: 'user', userId: [1, 3, 5] } } },
        tests: [
          { name: 'own profile', principal: 'user135', request: { method: 'GET', path: '/api/v1/users/1' }, expect: { status: 200 } },
          { name: `another's "profile" <2>`, principal: 'user135', request: { method: 'GET', path: '/api/v1/users/2' }, expect: { allow: true } },
        ],
      }),
    );
    const report = join(dir, 'reports/nested/junit.xml');
    const { code, stdout } = await svcgate('test', suite, '--junit', report);
    expect(code).toBe(1);
    expect(stdout).toContain(
      [
        `FAIL  another's "profile" <2> [user135]: GET /api/v1/users/2 -> 403`,
        '      allow: expected true, got false',
        '      decision: deny, role user, possession own, attributes -',
        '      reason: read:own needs ownership of path parameter userId',
      ].join('\n'),
    );
    expect(stdout).toMatch(/2 cases: 1 passed, 1 failed/);
    expect(stdout).toContain(`wrote ${report}\n`);

    const root = await parseXml(report);
    expect(root).toMatchObject({ tag: 'testsuites', attributes: { tests: '2', failures: '1', errors: '0' } });
    const [testsuite] = root.children;
    expect(testsuite).toMatchObject({ tag: 'testsuite', attributes: { name: 'users & <admins>', tests: '2', failures: '1', file: suite } });
    expect(testsuite!.attributes.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    const [passed, failed] = testsuite!.children;
    expect(passed).toMatchObject({ tag: 'testcase', attributes: { name: 'own profile [user135]', classname: 'users & <admins>' }, children: [] });
    expect(Number(passed!.attributes.time)).toBeGreaterThanOrEqual(0);
    expect(failed).toMatchObject({ tag: 'testcase', attributes: { name: `another's "profile" <2> [user135]` } });
    expect(failed!.children).toEqual([
      {
        tag: 'failure',
        attributes: { message: 'allow: expected true, got false', type: 'PermissionMismatch' },
        text: ['GET /api/v1/users/2 -> 403', 'allow: expected true, got false', 'decision: deny, role user, possession own, attributes -', 'reason: read:own needs ownership of path parameter userId'].join('\n'),
        children: [],
      },
    ]);
  });

  test('a bad suite: exit 2, one line naming the file, the place and the fix; no report written', async () => {
    const suite = join(dir, 'bad.yaml');
    writeFileSync(suite, dump({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: join(EXAMPLE, 'permissions.yaml'), tests: [{ name: 'x', principal: 'bob', request: { method: 'GET', path: '/api/v1/users/1' }, expect: { status: 200 } }] }));
    const report = join(dir, 'bad.xml');
    const { code, stdout, stderr } = await svcgate('test', suite, '--junit', report);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`svcgate: ${suite} at $.tests[0].principal: no principal is named "bob". Fix: declare it under principals (principals: { bob: { claims: { ... } } }), or use anonymous for a caller without a token\n`);
    expect(existsSync(report)).toBe(false);
  });

  test('usage: the suite is required, one only; --junit is this command’s; --help tells the format’s place', async () => {
    expect(await svcgate('test')).toMatchObject({ code: 2, stderr: 'svcgate: test needs <suite.yaml> (svcgate test --help)\n' });
    expect(await svcgate('test', SUITE, SUITE)).toMatchObject({ code: 2, stderr: `svcgate: unexpected argument ${SUITE} (svcgate test --help)\n` });
    expect(await svcgate('test', SUITE, '--openapi', 'x.yaml')).toMatchObject({ code: 2, stderr: 'svcgate: test takes no --openapi (svcgate test --help)\n' });
    expect(await svcgate('explain', '--junit', 'x.xml', 'GET', '/users')).toMatchObject({ code: 2, stderr: 'svcgate: explain takes no --junit (svcgate explain --help)\n' });
    expect((await svcgate('--help')).stdout).toContain('  svcgate test <suite.yaml> [--junit <file>] [--strict]\n');
    const help = await svcgate('test', '--help');
    expect(help.stdout).toMatch(/^usage: svcgate test <suite\.yaml> \[--junit <file>\] \[--strict\]\n/);
    expect(help.stdout).toContain('Permission test suites');
    expect(help.stdout).toContain('\n  --junit <file>');
  });
});
