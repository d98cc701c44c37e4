import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { svcgate } from '../helpers/svcgate-cli';

// The CLI is tested as users run it: the built bin, in a child process (`make test` builds first).
const EXAMPLE = join(__dirname, '../../examples/users-api');
const API = ['--openapi', join(EXAMPLE, 'openapi.yaml'), '--acl', join(EXAMPLE, 'permissions.yaml')];

describe('--version and --help', () => {
  test('--version prints the version of the package', async () => {
    const { version } = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string };
    expect(await svcgate('--version')).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  test('--help lists every command; <command> --help tells what it does and each option', async () => {
    const overview = await svcgate('--help');
    expect(overview.code).toBe(0);
    for (const command of ['build', 'explain', 'audit', 'diff', 'bundle']) expect(overview.stdout).toContain(`svcgate ${command} --openapi`);
    const diff = await svcgate('diff', '--help');
    expect(diff.code).toBe(0);
    expect(diff.stdout).toMatch(/^usage: svcgate diff /);
    for (const option of ['--openapi', '--acl <old file>', '--acl-new', '--scheme', '--required-scopes', '--json', '--fail-on']) expect(diff.stdout).toContain(`\n  ${option}`);
  });

  test("an option of another command is refused, not ignored; so is an unknown command", async () => {
    expect(await svcgate('explain', ...API, '--out', '/tmp/x', 'GET', '/users')).toMatchObject({ code: 2, stderr: 'svcgate: explain takes no --out (svcgate explain --help)\n' });
    expect((await svcgate('audti', ...API)).stderr).toMatch(/unknown command audti; the commands are build, explain, audit, diff, replay, bundle/);
  });
});

describe('svcgate diff', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-diff-'));
  const old = join(EXAMPLE, 'permissions.yaml');
  const changed = join(dir, 'new.yaml');
  // user may read every profile (widened); admin may no longer delete (narrowed).
  writeFileSync(
    changed,
    readFileSync(old, 'utf8')
      .replace('    read:own: ["*", "!password"]\n    update:own: [name, email]', '    read:any: ["*", "!password"]\n    update:own: [name, email]')
      .replace('    read:any: ["*", "!password"]\n    delete:any: ["*"]', '    read:any: ["*", "!password"]'),
  );
  const DIFF = ['--openapi', join(EXAMPLE, 'openapi.yaml'), '--acl', old, '--acl-new', changed];

  test('prints each cell that changes, widened or narrowed, with the grant that caused it', async () => {
    const { code, stdout } = await svcgate('diff', ...DIFF);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'widened  user on GET /users/{userId}: own ["!password","*"] -> any ["!password","*"]; new ACL: user /users/{userId} read:any ["*","!password"]',
        'narrowed admin on DELETE /users/{userId}: any ["*"] -> -; old ACL: admin /users/{userId} delete:any ["*"]',
        '',
      ].join('\n'),
    );
  });

  test('--fail-on gates CI: exit 1 when a cell changes that way', async () => {
    expect((await svcgate('diff', ...DIFF, '--fail-on', 'widen')).code).toBe(1);
    expect((await svcgate('diff', ...DIFF, '--fail-on', 'narrow')).code).toBe(1);
    const same = await svcgate('diff', '--openapi', join(EXAMPLE, 'openapi.yaml'), '--acl', old, '--acl-new', old, '--fail-on', 'change');
    expect(same).toMatchObject({ code: 0, stdout: 'no decision changes\n' });
    expect((await svcgate('diff', ...DIFF, '--fail-on', 'wider')).stderr).toMatch(/--fail-on must be one of widen, narrow, change/);
  });

  test('attributes count: unmasking a field widens, --json gives the changes as data', async () => {
    const unmasked = join(dir, 'unmasked.yaml');
    writeFileSync(unmasked, readFileSync(old, 'utf8').replace('    read:own: ["*", "!password"]', '    read:own: ["*"]'));
    const changes = JSON.parse((await svcgate('diff', '--openapi', join(EXAMPLE, 'openapi.yaml'), '--acl', old, '--acl-new', unmasked, '--json')).stdout);
    expect(changes).toContainEqual({
      operation: 'GET /users/{userId}',
      role: 'user',
      before: { access: 'own', attributes: ['!password', '*'] },
      after: { access: 'own', attributes: ['*'] },
      change: 'widened',
      cause: 'new ACL: user /users/{userId} read:own ["*"]',
    });
  });
});

describe('svcgate build', () => {
  test('writes data.json where opa finds it at data.svcgate.acl', async () => {
    const out = mkdtempSync(join(tmpdir(), 'svcgate-build-'));
    const { code, stdout } = await svcgate('build', ...API, '--out', out);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^wrote .*data\.json: 3 roles, 9 operations, revision [0-9a-f]{16}\n$/);
    const written = JSON.parse(readFileSync(join(out, 'data.json'), 'utf8'));
    expect(Object.keys(written.svcgate.acl.operations)).toContain('GET /users/{userId}');
    expect(written.svcgate.acl.roles.admin).toEqual({ extends: ['user'] });
  });

  test('needs --out', async () => {
    const { code, stderr } = await svcgate('build', ...API);
    expect(code).toBe(2);
    expect(stderr).toBe('svcgate: --out <dir> is required (svcgate build --help)\n');
  });
});

describe('svcgate explain', () => {
  test.each([['/users/3#'], ['/users\\3'], ['/users/abc']])('a target the adapters refuse (%s) is refused the same way, exit 2', async (target) => {
    const { code, stderr } = await svcgate('explain', ...API, '--token-claims', '{"role":"user","userId":[3]}', 'GET', target);
    expect(code).toBe(2);
    expect(stderr).toContain('the adapters refuse');
  });

  test('allows the owner and says why', async () => {
    const { code, stdout } = await svcgate('explain', ...API, '--token-claims', '{"role":"user","userId":[1,3]}', 'GET', '/users/3');
    expect(code).toBe(0);
    expect(stdout).toContain('GET /users/3 -> GET /users/{userId}\ndecision: ALLOW\nrole: user, possession: own, attributes: !password *\n');
  });

  test('denies another user with the reason, exit code 1', async () => {
    const { code, stdout } = await svcgate('explain', ...API, '--token-claims', '{"role":"user","userId":[1,3]}', 'GET', '/users/2');
    expect(code).toBe(1);
    expect(stdout).toContain('decision: DENY\n');
    expect(stdout).toContain('reason: read:own needs ownership of path parameter userId\n');
  });

  test('without claims the caller is anonymous, to whom the example grants nothing', async () => {
    const { code, stdout } = await svcgate('explain', ...API, 'GET', '/users');
    expect(code).toBe(1);
    expect(stdout).toContain('decision: DENY\nrole: -, possession: -, attributes: -\nreason: no role of the caller is granted read on /users\n');
  });

  test('takes the path as the server receives it, under the servers prefix, as well as the document path', async () => {
    const claims = ['--token-claims', '{"role":"user","userId":[3]}'];
    const served = await svcgate('explain', ...API, ...claims, 'GET', '/api/v1/users/3');
    expect(served.code).toBe(0);
    expect(served.stdout).toContain('GET /api/v1/users/3 -> GET /users/{userId}\ndecision: ALLOW\n');
    expect((await svcgate('explain', ...API, ...claims, 'GET', '/users/3')).stdout).toContain('GET /users/3 -> GET /users/{userId}\ndecision: ALLOW\n');
  });

  test('honours --role-binding', async () => {
    const { stdout } = await svcgate('explain', ...API, '--role-binding', 'groups', '--token-claims', '{"groups":["admin"]}', 'DELETE', '/users/9');
    expect(stdout).toContain('decision: ALLOW\nrole: admin, possession: any');
  });
});

describe('svcgate audit', () => {
  test('prints the role x operation matrix', async () => {
    const { code, stdout } = await svcgate('audit', ...API);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]!.split(/\s+/)).toEqual(['operation', 'admin', 'anonymous', 'user']);
    const row = (key: string) => lines.find((line) => line.startsWith(`${key} `))!.slice(key.length).trim().split(/\s+/);
    expect(row('GET /users/{userId}')).toEqual(['any', '-', 'own']);
    expect(row('PUT /users/{userId}')).toEqual(['own', '-', 'own']);
    expect(row('GET /users')).toEqual(['any', '-', '-']);
    expect(row('POST /users')).toEqual(['any', '-', '-']);
    // Unguarded operations are listed too, so that nothing reachable is missing from a review.
    expect(row('GET /status')).toEqual(['public', 'public', 'public']);
  });

  test('an ACL that leaves the anonymous default on: the warning once on stderr, the matrix unchanged', async () => {
    const acl = join(mkdtempSync(join(tmpdir(), 'svcgate-cli-')), 'no-anonymous.json');
    writeFileSync(acl, JSON.stringify({ admin: {} }));
    const { code, stdout, stderr } = await svcgate('audit', '--openapi', join(EXAMPLE, 'openapi.yaml'), '--acl', acl);
    expect(code).toBe(0);
    expect(stderr.match(/\[SVCGATE_ANONYMOUS_DEFAULT\] Warning: /g)).toHaveLength(1);
    expect(stderr).toContain(`${acl}: the ACL does not declare anonymous`);
    expect(stdout).toMatch(/^GET \/users +- +any$/m);
  });

  test('--anonymous-default none: an ACL without anonymous grants callers without a role nothing, and nothing is warned; it wins over the document key', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'svcgate-cli-'));
    const acl = join(folder, 'no-anonymous.json');
    writeFileSync(acl, JSON.stringify({ admin: {} }));
    const none = await svcgate('audit', '--openapi', join(EXAMPLE, 'openapi.yaml'), '--acl', acl, '--anonymous-default', 'none');
    expect(none.code).toBe(0);
    expect(none.stderr).not.toContain('SVCGATE_ANONYMOUS_DEFAULT');
    expect(none.stdout).toMatch(/^GET \/users +- +-$/m);
    // A document that says none (as svcAclOpenApi writes it), overridden with seed.
    const document = join(folder, 'openapi.json');
    writeFileSync(document, JSON.stringify({ ...(load(readFileSync(join(EXAMPLE, 'openapi.yaml'), 'utf8')) as object), 'x-acl-anonymous-default': 'none' }));
    expect((await svcgate('audit', '--openapi', document, '--acl', acl)).stdout).toMatch(/^GET \/users +- +-$/m);
    expect((await svcgate('audit', '--openapi', document, '--acl', acl, '--anonymous-default', 'seed')).stdout).toMatch(/^GET \/users +- +any$/m);
  });

  test('--json gives the same matrix as data', async () => {
    const { stdout } = await svcgate('audit', ...API, '--json');
    const matrix = JSON.parse(stdout);
    expect(matrix.roles).toEqual(['admin', 'anonymous', 'user']);
    expect(matrix.operations['GET /accounts/{accountId}']).toEqual({ admin: 'own', anonymous: '-', user: 'own' });
  });
});

describe('scopes and claim paths', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-cli-'));
  const openapi = join(dir, 'accounts.json');
  const accountId = { name: 'accountId', in: 'path', required: true, schema: { type: 'integer' }, 'x-acl-binding': 'tenant.accounts' };
  writeFileSync(
    openapi,
    JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'accounts', version: '1' },
      components: { securitySchemes: { oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://idp.example/token', scopes: {} } } } } },
      paths: {
        '/accounts': { get: { security: [{ oauth: ['accounts:read'] }] } },
        '/accounts/{accountId}': { delete: { parameters: [accountId], security: [{ oauth: ['accounts:write', 'admin'] }, { oauth: ['accounts:delete'] }] } },
        '/profile': { get: { security: [{ oauth: [] }] } },
      },
    }),
  );
  const acl = join(dir, 'permissions.json');
  writeFileSync(acl, JSON.stringify({ anonymous: {}, user: { '/accounts': { 'read:any': ['*'] }, '/accounts/{accountId}': { 'delete:own': ['*'] }, '/profile': { 'read:any': ['*'] } } }));
  const SCOPED = ['--openapi', openapi, '--acl', acl];

  test('audit adds a scopes column, and decides the roles with a token that holds them', async () => {
    const { code, stdout } = await svcgate('audit', ...SCOPED);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'operation                     anonymous  user  scopes',
        '----------------------------  ---------  ----  --------------------------------------',
        'GET /accounts                 -          any   accounts:read',
        'DELETE /accounts/{accountId}  -          own   accounts:write admin | accounts:delete',
        'GET /profile                  -          any   -',
        '',
      ].join('\n'),
    );
  });

  test('audit --json lists the scope alternatives per operation', async () => {
    const matrix = JSON.parse((await svcgate('audit', ...SCOPED, '--json')).stdout);
    expect(matrix.scopes).toEqual({ 'GET /accounts': [['accounts:read']], 'DELETE /accounts/{accountId}': [['accounts:write', 'admin'], ['accounts:delete']], 'GET /profile': [] });
    expect(matrix.operations['GET /accounts']).toEqual({ anonymous: '-', user: 'any' });
  });

  test('explain shows the scopes needed and names the missing ones', async () => {
    const denied = await svcgate('explain', ...SCOPED, '--token-claims', '{"role":"user","scope":"openid"}', 'GET', '/accounts');
    expect(denied.code).toBe(1);
    expect(denied.stdout).toContain('decision: DENY\nrole: user, possession: any, attributes: -\nscopes needed: accounts:read\nreason: missing scope accounts:read of the security requirement accounts:read\n');
    expect(denied.stdout).toContain('"scopes":[]');
    const allowed = await svcgate('explain', ...SCOPED, '--token-claims', '{"role":"user","scp":["accounts:delete"],"tenant":{"accounts":[7]}}', 'DELETE', '/accounts/7');
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain('decision: ALLOW\n');
  });

  test('--required-scopes adds scopes to every guarded operation', async () => {
    const { code, stdout } = await svcgate('explain', ...SCOPED, '--required-scopes', 'api', '--token-claims', '{"role":"user","scope":"accounts:read"}', 'GET', '/accounts');
    expect(code).toBe(1);
    expect(stdout).toContain('scopes needed: accounts:read api\n');
    expect((await svcgate('explain', ...SCOPED, '--required-scopes', 'not"ok', 'GET', '/accounts')).stderr).toMatch(/^svcgate: <compileAcl options> at \$\.requiredScopes\[0\]: /);
  });

  test('--role-binding takes a claim path; a bad one is a usage error', async () => {
    const { stdout } = await svcgate('explain', ...SCOPED, '--role-binding', 'realm_access.roles', '--token-claims', '{"realm_access":{"roles":["user"]},"scope":"accounts:read"}', 'GET', '/accounts');
    expect(stdout).toContain('decision: ALLOW\nrole: user');
    const bad = await svcgate('explain', ...SCOPED, '--role-binding', 'realm_access.', 'GET', '/accounts');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('svcgate: --role-binding: the path ends with a dot (remove the trailing dot, e.g. role, realm_access.roles or ["https://example.com/roles"]) (svcgate explain --help)\n');
  });
});

describe('bad input: one line on stderr and exit code 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-cli-'));
  const badYaml = join(dir, 'bad.yaml');
  writeFileSync(badYaml, 'user:\n  /users: [unclosed\n');
  const unknownPath = join(dir, 'unknown.json');
  writeFileSync(unknownPath, JSON.stringify({ user: { '/nowhere': { 'read:any': ['*'] } } }));

  test.each([
    ['no command', [], /^svcgate: no command given \(svcgate --help\)\n$/],
    ['an unknown command', ['deploy'], /^svcgate: unknown command deploy/],
    ['an unknown option', ['audit', '--colour'], /^svcgate: .*--colour/],
    ['a missing --acl', ['audit', '--openapi', join(EXAMPLE, 'openapi.yaml')], /^svcgate: --acl <file> is required/],
    ['an unreadable file', ['audit', '--openapi', join(dir, 'missing.yaml'), '--acl', unknownPath], /^svcgate: .*missing\.yaml/],
    ['invalid YAML', ['audit', '--openapi', join(EXAMPLE, 'openapi.yaml'), '--acl', badYaml], /^svcgate: .*bad\.yaml/],
    ['an ACL naming an unknown path', ['audit', '--openapi', join(EXAMPLE, 'openapi.yaml'), '--acl', unknownPath], /^svcgate: .*unknown\.json at \$\.user\["\/nowhere"\]: \/nowhere is not a path/],
    ['invalid --token-claims', ['explain', ...API, '--token-claims', '{role:', 'GET', '/users'], /^svcgate: --token-claims is not valid JSON/],
    ['--token-claims that is not an object', ['explain', ...API, '--token-claims', '[1]', 'GET', '/users'], /^svcgate: --token-claims must be a JSON object/],
    ['a path of no operation', ['explain', ...API, 'GET', '/nowhere'], /^svcgate: no operation of the document matches GET \/nowhere \(svcgate explain --help\)\n$/],
    // A documented path with a method it does not declare: the methods it takes, as a 405's Allow lists them.
    ['a method the path does not take', ['explain', ...API, 'PATCH', '/users'], /^svcgate: no operation of the document matches PATCH \/users; \/users takes GET, HEAD, POST \(the adapters answer 405 with Allow\)/],
    ['a method the path does not take, under the servers prefix', ['explain', ...API, 'DELETE', '/api/v1/users/3/reports/2024-01'], /; \/api\/v1\/users\/3\/reports\/2024-01 takes GET, HEAD \(/],
    ['explain without a path', ['explain', ...API, 'GET'], /^svcgate: explain needs <METHOD> <path>/],
    ['an --anonymous-default other than seed or none', ['audit', ...API, '--anonymous-default', 'off'], /^svcgate: --anonymous-default must be seed or none/],
  ])('%s', async (_name, args, message) => {
    const { code, stdout, stderr } = await svcgate(...(args as string[]));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
