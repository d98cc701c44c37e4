import { examplePermissions } from '../helpers/bundles';
import { withoutUserRead } from '../helpers/consumer-fixture';
import { send, shadowApp, shadowSettled, type ShadowApp } from './shadow-apps';

// byRole is keyed by the caller's role claim, which tokens carry: the table must stay small
// whatever roles they name, and a role named like an object's own keys is a role like another.

let app: ShadowApp;
beforeAll(async () => {
  app = await shadowApp({ acl: { bearerAuth: examplePermissions() }, shadow: { source: examplePermissions(withoutUserRead) } });
});
afterAll(() => app.close());

test('tokens with 100 distinct role claims name at most 64 role sets; the rest are counted under (other roles)', async () => {
  const before = app.guard.shadowStatus()!.compared;
  for (let i = 0; i < 100; i++) await send(app.url, { method: 'GET', path: '/users/1', claims: { role: `role-${i}`, userId: 1 } });
  const status = await shadowSettled(app.guard, (counted) => counted.compared === before + 100);
  const keys = Object.keys(status.byRole);
  expect(keys.length).toBeLessThanOrEqual(65);
  expect(keys).toContain('(other roles)');
  const total = Object.values(status.byRole).reduce((sum, counts) => sum + counts.compared, 0);
  expect(total).toBe(status.compared);
});

test('role claims __proto__, constructor and a list holding them are counted as roles, and no prototype is touched', async () => {
  const fresh = await shadowApp({ acl: { bearerAuth: examplePermissions() }, shadow: { source: examplePermissions(withoutUserRead) } });
  try {
    for (const role of ['__proto__', 'constructor', ['__proto__', 'user'], 'user']) {
      const answer = await send(fresh.url, { method: 'GET', path: '/users/1', claims: { role, userId: 1 } });
      expect(answer.status).toBe(role === 'user' || Array.isArray(role) ? 200 : 403);
    }
    const status = await shadowSettled(fresh.guard, (counted) => counted.compared === 4);
    expect(Object.hasOwn(status.byRole, '__proto__')).toBe(true);
    expect(status.byRole['__proto__']).toMatchObject({ compared: 1, divergences: 0 });
    expect(status.byRole.constructor).toMatchObject({ compared: 1 });
    expect(status.byRole['__proto__,user']).toMatchObject({ compared: 1, divergences: 1 });
    expect(status.byRole.user).toMatchObject({ compared: 1, divergences: 1 });
    expect(({} as Record<string, unknown>).compared).toBeUndefined();
    expect(JSON.parse(JSON.stringify(status.byRole))).toHaveProperty(['__proto__', 'compared'], 1);
  } finally {
    await fresh.close();
  }
});

test('a flood of divergences keeps 10 examples and one row per operation and role', async () => {
  const fresh = await shadowApp({ acl: { bearerAuth: examplePermissions() }, shadow: { source: examplePermissions(withoutUserRead) } });
  try {
    const total = 60;
    for (let i = 0; i < total; i++) expect((await send(fresh.url, { method: 'GET', path: `/users/${i}`, claims: { role: 'user', userId: i } })).status).toBe(200);
    const status = await shadowSettled(fresh.guard, (counted) => counted.compared === total);
    expect(status).toMatchObject({ divergences: total, changes: { narrowed: total } });
    expect(status.examples).toHaveLength(10);
    expect(Object.keys(status.byOperation)).toEqual(['GET /users/{userId}']);
    expect(Object.keys(status.byRole)).toEqual(['user']);
    // A snapshot: changing it changes nothing the middleware keeps.
    status.examples.length = 0;
    expect(fresh.guard.shadowStatus()!.examples).toHaveLength(10);
  } finally {
    await fresh.close();
  }
});
