import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { svcgate } from '../helpers/svcgate-cli';

// `svcgate diff` (issue 29, section 4): attribute lists compared by the fields they show, and the
// declared grant that changed named, also when it is inherited through $extend. The built CLI on
// ACL files written here, against the example document (GET /users is read on /users).
const OPENAPI = join(__dirname, '../../examples/users-api/openapi.yaml');
const dir = mkdtempSync(join(tmpdir(), 'svcgate-diff-meaning-'));
let count = 0;

function acl(roles: Record<string, unknown>): string {
  const file = join(dir, `acl-${count++}.json`);
  writeFileSync(file, JSON.stringify({ anonymous: {}, ...roles }));
  return file;
}

async function diff(old: Record<string, unknown>, next: Record<string, unknown>, ...options: string[]) {
  return svcgate('diff', '--openapi', OPENAPI, '--acl', acl(old), '--acl-new', acl(next), ...options);
}

const readUsers = (attributes: string[]) => ({ '/users': { 'read:any': attributes } });

describe('the same set of fields is no change', () => {
  test.each([
    ['["*"] and ["*","id"]', ['*'], ['*', 'id']],
    ['order and duplicates', ['name', 'id'], ['id', 'name', 'id']],
    ['a field under a field', ['address'], ['address', 'address.city']],
    ['a glob under *', ['*'], ['*', 'address.city', '*.zip']],
    ['a negation under a negation', ['*', '!address'], ['*', '!address.city', '!address']],
    ['a negation of what is not shown', ['id', 'name'], ['name', 'id', '!password']],
  ])('%s', async (_name, before, after) => {
    const run = await diff({ admin: readUsers(before) }, { admin: readUsers(after) }, '--fail-on', 'change');
    expect(run).toMatchObject({ code: 0, stdout: 'no decision changes\n' });
  });
});

describe('a different set of fields is a change, told by its direction', () => {
  test('["*","!password"] -> ["*"] widens; back narrows; the lists are shown in canonical form', async () => {
    const widened = await diff({ admin: readUsers(['*', '!password', '*']) }, { admin: readUsers(['*', 'id']) }, '--fail-on', 'widen');
    expect(widened).toMatchObject({ code: 1, stdout: 'widened  admin on GET /users: any ["!password","*"] -> any ["*"]; new ACL: admin /users read:any ["*","id"]\n' });
    const narrowed = await diff({ admin: readUsers(['*']) }, { admin: readUsers(['*', '!password']) }, '--fail-on', 'narrow');
    expect(narrowed).toMatchObject({ code: 1, stdout: 'narrowed admin on GET /users: any ["*"] -> any ["!password","*"]; new ACL: admin /users read:any ["*","!password"]\n' });
  });

  test('a field for another field is a change both ways; a field under * is a narrowing of *', async () => {
    expect((await diff({ admin: readUsers(['name']) }, { admin: readUsers(['email']) })).stdout).toMatch(/^changed  admin on GET \/users: any \["name"\] -> any \["email"\]; /);
    expect((await diff({ admin: readUsers(['*']) }, { admin: readUsers(['address.city']) })).stdout).toMatch(/^narrowed admin on GET \/users: any \["\*"\] -> any \["address\.city"\]; /);
    expect((await diff({ admin: readUsers(['address.city']) }, { admin: readUsers(['address']) })).stdout).toMatch(/^widened  admin on GET \/users: any \["address\.city"\] -> any \["address"\]; /);
  });

  test('--json carries the canonical lists', async () => {
    const changes = JSON.parse((await diff({ admin: readUsers(['*', 'id', '!password']) }, { admin: readUsers(['*']) }, '--json')).stdout);
    expect(changes).toEqual([
      { operation: 'GET /users', role: 'admin', before: { access: 'any', attributes: ['!password', '*'] }, after: { access: 'any', attributes: ['*'] }, change: 'widened', cause: 'new ACL: admin /users read:any ["*"]' },
    ]);
  });
});

describe('the cause is the declared grant that changed, through $extend too', () => {
  test("a negation added to an extended role narrows the extending role, and is named, not the role's own unchanged grant", async () => {
    const old = { user: readUsers(['*']), admin: { $extend: ['user'], ...readUsers(['id', 'name']) } };
    const next = { user: readUsers(['*', '!password']), admin: { $extend: ['user'], ...readUsers(['id', 'name']) } };
    const { code, stdout } = await diff(old, next);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'narrowed admin on GET /users: any ["*"] -> any ["!password","*"]; new ACL: user /users read:any ["*","!password"] via $extend of user',
        'narrowed user on GET /users: any ["*"] -> any ["!password","*"]; new ACL: user /users read:any ["*","!password"]',
        '',
      ].join('\n'),
    );
  });

  test('the case of the issue: whatever the compiler makes of the union, an admin change is never blamed on its own unchanged grant', async () => {
    const old = { user: readUsers(['*']), admin: { $extend: ['user'], ...readUsers(['*']) } };
    const next = { user: readUsers(['*', '!password']), admin: { $extend: ['user'], ...readUsers(['*']) } };
    const { stdout } = await diff(old, next);
    expect(stdout).toContain('narrowed user on GET /users: any ["*"] -> any ["!password","*"]; new ACL: user /users read:any ["*","!password"]\n');
    expect(stdout).not.toContain('admin /users read:any');
    for (const line of stdout.split('\n').filter((text) => text.includes(' admin on '))) expect(line).toMatch(/; new ACL: user \/users read:any \["\*","!password"\] via \$extend of user$/);
  });

  test('a longer chain is spelled out; a removed grant is named from the old ACL', async () => {
    const old = { user: readUsers(['*']), manager: { $extend: ['user'] }, admin: { $extend: ['manager'] } };
    const next = { user: readUsers(['id']), manager: { $extend: ['user'] }, admin: { $extend: ['manager'] } };
    expect((await diff(old, next)).stdout).toContain('narrowed admin on GET /users: any ["*"] -> any ["id"]; new ACL: user /users read:any ["id"] via $extend of user (admin > manager > user)\n');
    const removed = await diff(old, { user: {}, manager: { $extend: ['user'] }, admin: { $extend: ['manager'] } });
    expect(removed.stdout).toContain('narrowed manager on GET /users: any ["*"] -> -; old ACL: user /users read:any ["*"] via $extend of user\n');
  });

  test('a long chain that changed at every step: the nearest three named, the rest counted, the chain shortened', async () => {
    const roles = (attributes: string[]) => Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`r${index}`, { ...(index > 0 ? { $extend: [`r${index - 1}`] } : {}), ...readUsers(attributes) }]));
    const { stdout } = await diff(roles(['*']), roles(['*', '!password']));
    const line = stdout.split('\n').find((text) => text.includes(' r7 on '))!;
    expect(line).toBe(
      'narrowed r7 on GET /users: any ["*"] -> any ["!password","*"]; new ACL: r7 /users read:any ["*","!password"]; new ACL: r6 /users read:any ["*","!password"] via $extend of r6; new ACL: r5 /users read:any ["*","!password"] via $extend of r5 (r7 > r6 > r5); and 5 more changes along the $extend chain',
    );
  });

  test('a role that no longer extends another: the $extend list is named', async () => {
    const old = { user: readUsers(['*']), admin: { $extend: ['user'] } };
    const next = { user: readUsers(['*']), admin: {} };
    expect((await diff(old, next)).stdout).toBe('narrowed admin on GET /users: any ["*"] -> -; new ACL: admin $extend [] (was ["user"])\n');
  });
});
