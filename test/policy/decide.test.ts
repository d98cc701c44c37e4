import { join } from 'node:path';
import { compileAcl, createOperationMatcher, decide, Evaluator, RequestValidationError, type CheckOwnership, type DecideOptions, type VerifiedPayload } from '../../src/policy';
import { bearerApi, getWithPathParam } from '../helpers/bearer-api';

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
  test.each(['2', '4', '6', '-1'])('/users/%s is denied', async (id) => {
    expect((await request('GET', `/users/${id}`, user)).decision).toMatchObject({ allow: false, reasons: ['read:own needs ownership of path parameter userId'] });
  });
  // Not an integer: the handler, or a validator after the guard, would read it some other way, so nothing is decided on it.
  test.each(['1.5', 'abc', '1e0', '0x1'])('/users/%s is refused as a bad request', async (id) => {
    await expect(request('GET', `/users/${id}`, user)).rejects.toThrow(RequestValidationError);
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
  // The example declares anonymous with no grants; here it may list users.
  const anonymousData = compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: { anonymous: { '/users': { 'read:any': ['*'] } } } });
  const anonymousEvaluator = await Evaluator.create(anonymousData);
  const find = createOperationMatcher(anonymousData.operations);
  const decideAnonymous = async (path: string) => {
    const found = find('GET', path)!;
    return (await decide(anonymousEvaluator, found.key, found.operation, { pathParams: found.pathParams }, undefined)).decision;
  };
  expect(await decideAnonymous('/users')).toMatchObject({ allow: true, role: 'anonymous' });
  expect((await decideAnonymous('/users/1')).allow).toBe(false);
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

describe('exact numbers (SPEC 7.4)', () => {
  const openapi = bearerApi({ '/users/{userId}': getWithPathParam('userId', 'integer'), '/prices/{price}': getWithPathParam('price', 'number') }, 'numbers');
  const acl = { anonymous: {}, user: { '/users/{userId}': { 'read:own': ['*'] }, '/prices/{price}': { 'read:own': ['*'] } } };
  const numbers = compileAcl({ openapi, acl });
  const findNumber = createOperationMatcher(numbers.operations);
  let numberEvaluator: Evaluator;
  beforeAll(async () => {
    numberEvaluator = await Evaluator.create(numbers);
  });
  async function get(path: string, payload: VerifiedPayload, options: DecideOptions = {}) {
    const found = findNumber('GET', path)!;
    return (await decide(numberEvaluator, found.key, found.operation, { pathParams: found.pathParams }, payload, options)).decision.allow;
  }
  // JSON.parse, as a verifier reads the token: 12345678901234567890 arrives as 12345678901234567168.
  const roundedClaim = JSON.parse('{"role":"user","userId":[12345678901234567890]}') as VerifiedPayload;

  test('an integer claim beyond 2^53 written as a JSON number owns nothing: neither its rounded neighbour nor itself', async () => {
    expect(await get('/users/12345678901234567168', roundedClaim)).toBe(false);
    expect(await get('/users/12345678901234567890', roundedClaim)).toBe(false);
  });

  test('written as a string it owns exactly itself', async () => {
    const payload = { role: 'user', userId: ['12345678901234567890'] };
    expect(await get('/users/12345678901234567890', payload)).toBe(true);
    expect(await get('/users/012345678901234567890', payload)).toBe(true);
    expect(await get('/users/12345678901234567168', payload)).toBe(false);
  });

  test('a number parameter compares exact decimals: 9007199254740993 is not owned by 9007199254740992', async () => {
    expect(await get('/prices/9007199254740993', { role: 'user', price: '9007199254740992' })).toBe(false);
    expect(await get('/prices/9007199254740993', { role: 'user', price: 9007199254740992 })).toBe(false);
    expect(await get('/prices/9007199254740993', { role: 'user', price: '9007199254740993' })).toBe(true);
    expect(await get('/prices/2.50', { role: 'user', price: 2.5 })).toBe(true);
    expect(await get('/prices/1e2', { role: 'user', price: 100 })).toBe(true);
  });

  test.each([
    ['/users/002', 2],
    ['/users/9007199254740991', 9007199254740991],
    ['/users/9007199254740993', 9007199254740993n],
    ['/users/-12345678901234567890', -12345678901234567890n],
    ['/prices/2.50', 2.5],
    ['/prices/0.1', 0.1],
    ['/prices/1e21', 1e21],
    ['/prices/9007199254740993', '9007199254740993'],
    ['/prices/0.10000000000000000001', '0.10000000000000000001'],
  ])('checkOwnership gets %s exactly: %p', async (path, expected) => {
    const values: unknown[] = [];
    const record: CheckOwnership = (_payload, _binding, value) => {
      values.push(value);
      return false;
    };
    await get(path, { role: 'user' }, { checkOwnership: record });
    expect(values).toEqual([expected]);
  });
});

describe('checkOwnershipTimeoutMs (SPEC 7.5)', () => {
  const never = () => new Promise<boolean>(() => undefined);
  const later = <T>(ms: number, settle: (resolve: (value: T) => void, reject: (error: Error) => void) => void) => new Promise<T>((resolve, reject) => setTimeout(() => settle(resolve, reject), ms));

  test('a check that never settles counts as not owned once the time limit has passed', async () => {
    expect((await request('GET', '/users/1', { role: 'user' }, { checkOwnership: never, checkOwnershipTimeoutMs: 20 })).decision).toMatchObject({
      allow: false,
      reasons: ['read:own needs ownership of path parameter userId'],
    });
  });

  test('an answer after the limit is ignored, and a late rejection is handled', async () => {
    const lateTrue = () => later<boolean>(60, (resolve) => resolve(true));
    const lateRejection = () => later<boolean>(60, (_resolve, reject) => reject(new Error('too late')));
    for (const checkOwnership of [lateTrue, lateRejection]) {
      expect((await request('GET', '/users/1', { role: 'user' }, { checkOwnership, checkOwnershipTimeoutMs: 10 })).decision.allow).toBe(false);
      // Let the late answer arrive while the test still runs: Jest fails a test on an unhandled rejection.
      await later(100, (resolve) => resolve(undefined));
    }
  });

  test('an answer within the limit counts', async () => {
    const soonTrue = () => later<boolean>(5, (resolve) => resolve(true));
    expect((await request('GET', '/users/1', { role: 'user' }, { checkOwnership: soonTrue, checkOwnershipTimeoutMs: 5000 })).decision.allow).toBe(true);
  });

  test('the pending time limit does not keep the process alive', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const before = timers();
    const pending = request('GET', '/users/1', { role: 'user' }, { checkOwnership: never, checkOwnershipTimeoutMs: 50 });
    await Promise.resolve();
    expect(timers()).toBe(before);
    expect((await pending).decision.allow).toBe(false);
  });
});

describe('scopes', () => {
  const scoped = bearerApi({ '/items/{itemId}': { get: { ...(getWithPathParam('itemId', 'integer').get as object), security: [{ bearerAuth: ['items:read'] }] } } });
  const scopedData = compileAcl({ openapi: scoped, acl: { anonymous: {}, user: { '/items/{itemId}': { 'read:own': ['*'] } } } });
  const key = 'GET /items/{itemId}';
  const decideItem = async (payload: VerifiedPayload, options: DecideOptions = {}) =>
    decide(await Evaluator.create(scopedData), key, scopedData.operations[key]!, { pathParams: { itemId: '4' } }, payload, options);

  test('the input carries the token scopes the operation names, from scope or scp', async () => {
    expect((await decideItem({ role: 'user', itemId: 4, scope: 'openid items:read items:write' })).input.scopes).toEqual(['items:read']);
    expect((await decideItem({ role: 'user', itemId: 4, scp: ['items:read'] })).decision.allow).toBe(true);
    expect((await decideItem({ role: 'user', itemId: 4, scp: 'items:read' })).decision.allow).toBe(true);
    expect((await decideItem({ role: 'user', itemId: 4, scope: ['items:read'] })).input.scopes).toEqual([]);
  });

  test('checkOwnership is not asked when the token lacks a scope: ownership cannot make up for it', async () => {
    const check = jest.fn<boolean, Parameters<CheckOwnership>>(() => true);
    const { decision } = await decideItem({ role: 'user' }, { checkOwnership: check });
    expect(decision).toMatchObject({ allow: false, possession: 'own', scopes: ['items:read'] });
    expect(check).not.toHaveBeenCalled();
    expect((await decideItem({ role: 'user', scope: 'items:read' }, { checkOwnership: check })).decision.allow).toBe(true);
    expect(check).toHaveBeenCalledTimes(1);
  });
});
