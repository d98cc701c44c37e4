import { join } from 'node:path';
import { compileAcl, createOperationMatcher, decide, Evaluator, type CheckOwnership, type DecideOptions, type VerifiedPayload } from '../../src/policy';

const EXAMPLE = join(__dirname, '../../examples/users-api');
const data = compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: join(EXAMPLE, 'permissions.yaml') });
const match = createOperationMatcher(data.operations);
let evaluator: Evaluator;
beforeAll(async () => {
  evaluator = await Evaluator.create(data);
});

async function request(method: string, target: string, payload: VerifiedPayload | undefined, options: DecideOptions = {}) {
  const url = new URL(target, 'http://127.0.0.1');
  const found = match(method, url.pathname)!;
  return decide(evaluator, found.key, found.operation, { pathParams: found.pathParams, query: url.searchParams }, payload, options);
}

describe('the seed case: read:own on /users/{userId}, a token listing 1, 3 and 5', () => {
  const user = { role: 'user', userId: [1, 3, 5] };
  test.each(['1', '3', '5', '003', '+5'])('/users/%s is allowed', async (id) => {
    expect((await request('GET', `/users/${id}`, user)).decision).toMatchObject({ allow: true, possession: 'own', role: 'user' });
  });
  test.each(['2', '4', '6', '1.5', 'abc', '-1'])('/users/%s is denied', async (id) => {
    expect((await request('GET', `/users/${id}`, user)).decision).toMatchObject({ allow: false, reasons: ['read:own needs ownership of path parameter userId'] });
  });
  test('a string claim "3" owns /users/3 too', async () => {
    expect((await request('GET', '/users/3', { role: 'user', userId: '3' })).decision.allow).toBe(true);
  });
});

test('the input carries the serialized parameter and claim values', async () => {
  const { input } = await request('GET', '/users/003', { role: 'user', userId: [1, 3] });
  expect(input).toEqual({ operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['3'] }, claims: { 'path:userId': ['1', '3'] } });
});

test('x-acl-binding compares with the bound claim, not the parameter name', async () => {
  expect((await request('GET', '/accounts/acc-1', { role: 'user', accounts: ['acc-1'], accountId: 'acc-2' })).decision.allow).toBe(true);
  expect((await request('GET', '/accounts/acc-2', { role: 'user', accounts: ['acc-1'], accountId: 'acc-2' })).decision.allow).toBe(false);
});

test('roleBinding names the role claim, and role is the fallback when it is absent', async () => {
  expect((await request('GET', '/users/9', { groups: 'admin' }, { roleBinding: 'groups' })).decision.role).toBe('admin');
  expect((await request('GET', '/users/9', { role: 'admin' }, { roleBinding: 'groups' })).decision.role).toBe('admin');
  expect((await request('GET', '/users/9', { groups: 7, role: 'admin' }, { roleBinding: 'groups' })).decision.allow).toBe(false);
});

test('a claim inherited from Object.prototype is not a claim', async () => {
  const { input } = await request('GET', '/users/1', { role: 'user' }, { roleBinding: 'constructor' });
  expect(input.role).toBe('user');
});

test('no verified payload is the anonymous role', async () => {
  expect((await request('GET', '/users', undefined)).decision).toMatchObject({ allow: true, role: 'anonymous' });
  expect((await request('GET', '/users/1', undefined)).decision.allow).toBe(false);
});

describe('checkOwnership', () => {
  function recorder(answer: (value: unknown) => unknown) {
    const calls: unknown[][] = [];
    const check = ((payload, binding, value) => {
      calls.push([payload, binding, value]);
      return answer(value);
    }) as CheckOwnership;
    return { calls, check };
  }

  test('decides instead of the claims and gets the payload, the binding and the typed value', async () => {
    const { calls, check } = recorder((value) => value === 2);
    const payload = { role: 'user', userId: [1] };
    expect((await request('GET', '/users/002', payload, { checkOwnership: check })).decision.allow).toBe(true);
    expect((await request('GET', '/users/1', payload, { checkOwnership: check })).decision.allow).toBe(false);
    expect(calls).toEqual([
      [payload, 'userId', 2],
      [payload, 'userId', 1],
    ]);
  });

  test('gets the x-acl-binding name', async () => {
    const { calls, check } = recorder(() => true);
    await request('GET', '/accounts/acc-9', { role: 'user' }, { checkOwnership: check });
    expect(calls[0]!.slice(1)).toEqual(['accounts', 'acc-9']);
  });

  test('is not called when any was granted', async () => {
    const { calls, check } = recorder(() => false);
    expect((await request('GET', '/users/4', { role: 'admin' }, { checkOwnership: check })).decision.allow).toBe(true);
    expect(calls).toHaveLength(0);
  });

  test.each([
    ['a truthy non-boolean', () => 'yes'],
    ['1', () => 1],
    ['a throw', () => {
      throw new Error('boom');
    }],
    ['a rejected promise', () => Promise.reject(new Error('boom'))],
    ['a promise of a string', () => Promise.resolve('true')],
  ])('%s counts as not owned', async (_name, answer) => {
    const { check } = recorder(answer);
    expect((await request('GET', '/users/1', { role: 'user' }, { checkOwnership: check })).decision.allow).toBe(false);
  });

  test('a promise of true owns', async () => {
    const { check } = recorder(() => Promise.resolve(true));
    expect((await request('PUT', '/users/1', { role: 'user' }, { checkOwnership: check })).decision).toMatchObject({ allow: true, attributes: ['email', 'name'] });
  });
});
