import type { DecisionLogEvent } from '../../src/auth';
import { examplePermissions, type Permissions } from '../helpers/bundles';
import { LIST_ACL, LIST_OPENAPI } from '../helpers/list-callers';
import { send, shadowApp, shadowSettled, type Call, type ShadowApp } from './shadow-apps';

// decisionChange through the guard: a candidate declaration beside the example's, one request,
// and what the status, the log and the examples call the difference.

const opened: ShadowApp[] = [];
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
});

async function compareOne(active: unknown, candidate: unknown, call: Call, options: { openapi?: string; prefix?: string } = {}) {
  const events: DecisionLogEvent[] = [];
  const app = await shadowApp({ ...(options.openapi ? { openapi: options.openapi } : {}), acl: { bearerAuth: active }, decisionLog: (event) => events.push(event), shadow: { source: candidate } });
  opened.push(app);
  const answer = await send(app.url, call, options.prefix);
  const status = await shadowSettled(app.guard, (counted) => counted.compared === 1);
  return { answer, status, divergence: events.find((event) => event.shadow !== undefined) };
}

const userRead = (attributes: string[] | undefined) => (permissions: Permissions) => {
  if (attributes === undefined) delete permissions.user!['/users/{userId}']!['read:own'];
  else permissions.user!['/users/{userId}']!['read:own'] = attributes;
};
const owner: Call = { method: 'GET', path: '/users/1', claims: { role: 'user', userId: 1 } };

test.each([
  ['a deny the candidate allows', (permissions: Permissions): void => void (permissions.user!['/users'] = { 'read:any': ['*'] }), { method: 'GET', path: '/users', claims: { role: 'user' } }, 'widened', 403],
  ['more fields (the password too)', userRead(['*']), owner, 'widened', 200],
  ['fewer fields', userRead(['id', 'name']), owner, 'narrowed', 200],
  ['an allow the candidate denies', userRead(undefined), owner, 'narrowed', 200],
  ['other fields, some more and some fewer', userRead(['password']), owner, 'changed', 200],
] as const)('%s', async (_name, edit, call, change, status) => {
  const { answer, status: counted, divergence } = await compareOne(examplePermissions(), examplePermissions(edit), call);
  expect(answer.status).toBe(status);
  expect(counted).toMatchObject({ divergences: 1, changes: { [change]: 1 }, examples: [{ change }] });
  expect(divergence!.shadow!.change).toBe(change);
});

test.each([
  ['the same fields spelled otherwise', ['id', '*', '!password']],
  ['the same fields in another order', ['!password', '*']],
])('no divergence: %s', async (_name, attributes) => {
  const { status, divergence } = await compareOne(examplePermissions(), examplePermissions(userRead(attributes)), owner);
  expect(status).toMatchObject({ compared: 1, divergences: 0 });
  expect(divergence).toBeUndefined();
});

describe('list plans (x-acl-list)', () => {
  const customer: Call = { method: 'GET', path: '/orders', claims: { role: 'customer', orders: [7, 9] } };
  const support: Call = { method: 'GET', path: '/orders', claims: { role: 'support' } };
  type ListAcl = Record<string, Record<string, Record<string, string[]>>>;
  const list = (edit: (acl: ListAcl) => void): ListAcl => {
    const acl = structuredClone(LIST_ACL) as ListAcl;
    edit(acl);
    return acl;
  };

  test.each([
    ['some rows to all rows', list((acl) => void (acl.customer!['/orders/{orderId}'] = { 'read:any': ['*', '!internalNote'] })), customer, 'widened'],
    ['all rows to some rows', list((acl) => void (acl.support!['/orders/{orderId}'] = { 'read:own': ['*'] })), { ...support, claims: { role: 'support', orders: [7] } }, 'narrowed'],
    ['the same rows, more fields', list((acl) => void (acl.customer!['/orders/{orderId}'] = { 'read:own': ['*'] })), customer, 'widened'],
  ] as const)('%s', async (_name, candidate, call, change) => {
    const { answer, status, divergence } = await compareOne(LIST_ACL, candidate, call, { openapi: LIST_OPENAPI, prefix: '' });
    expect(answer.status).toBe(200);
    expect(status).toMatchObject({ divergences: 1, changes: { [change]: 1 } });
    expect(divergence).toMatchObject({ path: 'svcgate/authz/plan', shadow: { change } });
  });

  test('the same plan from another declaration is no divergence', async () => {
    const candidate = list((acl) => void (acl.customer!['/orders/{orderId}'] = { 'read:own': ['!internalNote', '*'] }));
    const { status } = await compareOne(LIST_ACL, candidate, customer, { openapi: LIST_OPENAPI, prefix: '' });
    expect(status).toMatchObject({ compared: 1, divergences: 0 });
  });
});

describe('with checkOwnership', () => {
  // Active: admins read any user. Candidate: admins read only the users they own, which the app's
  // checkOwnership decides (admins extend user, whose read:own needs it).
  const ownOnly = (permissions: Permissions) => void delete (permissions.admin as Record<string, unknown>)['users/:userId'];

  test.each([
    [true, 0],
    [false, 1],
  ])('a candidate that grants own only is given the check the active decision did not need (owns: %s)', async (owns, divergences) => {
    let asked = 0;
    const app = await shadowApp({
      acl: { bearerAuth: examplePermissions() },
      checkOwnership: () => {
        asked += 1;
        return owns;
      },
      shadow: { source: examplePermissions(ownOnly) },
    });
    opened.push(app);
    expect((await send(app.url, { method: 'GET', path: '/users/1', claims: { role: 'admin' } })).status).toBe(200);
    const status = await shadowSettled(app.guard, (counted) => counted.compared === 1);
    expect(status).toMatchObject({ divergences, errors: 0 });
    // Not by the active decision (read:any); once for the candidate, after the answer.
    expect(asked).toBe(1);
  });
});
