import { join } from 'node:path';
import fc from 'fast-check';
import { compileAcl, Evaluator, type PolicyInput } from '../../src/policy';

// The decision cache may only ever return what the policy would say for the same input and data:
// these cases first put an allow in the cache, then ask something that must be denied.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const data = compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: join(EXAMPLE, 'permissions.yaml') });
const owner: PolicyInput = { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['3'] }, claims: { 'path:userId': ['3'] } };

let evaluator: Evaluator;
beforeEach(async () => {
  evaluator = await Evaluator.create(data);
  expect(evaluator.evaluate(owner).allow).toBe(true);
});

test('a repeated input is answered from the cache with the same decision object', () => {
  expect(evaluator.evaluate({ ...owner })).toBe(evaluator.evaluate(owner));
});

test('another parameter value is not the cached allow', () => {
  expect(evaluator.evaluate({ ...owner, params: { 'path:userId': ['4'] } }).allow).toBe(false);
});

test('another role (another token) is not the cached allow', () => {
  expect(evaluator.evaluate({ ...owner, role: 'guest' }).allow).toBe(false);
  expect(evaluator.evaluate({ ...owner, role: undefined }).allow).toBe(false);
});

test('other claims are not the cached allow', () => {
  expect(evaluator.evaluate({ ...owner, claims: { 'path:userId': ['5'] } }).allow).toBe(false);
});

test('another ownership check result is not the cached allow', () => {
  const checked = { ...owner, checks: { 'path:userId': true } };
  expect(evaluator.evaluate(checked).allow).toBe(true);
  expect(evaluator.evaluate({ ...owner, checks: { 'path:userId': false } }).allow).toBe(false);
});

test('after a data swap the cached allow is gone', async () => {
  await evaluator.setData(compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: { user: {} } }));
  expect(evaluator.evaluate(owner).allow).toBe(false);
});

test('cached decisions cannot be changed by a caller', () => {
  const decision = evaluator.evaluate(owner);
  expect(() => {
    (decision as { allow: boolean }).allow = false;
  }).toThrow(TypeError);
  expect(() => (decision.attributes as string[]).push('password')).toThrow(TypeError);
  expect(evaluator.evaluate(owner).attributes).toEqual(['!password', '*']);
});

test('decisionCacheSize 0 turns the cache off; the answers are the same', async () => {
  const uncached = await Evaluator.create(data, { decisionCacheSize: 0 });
  const first = uncached.evaluate(owner);
  expect(uncached.evaluate(owner)).not.toBe(first);
  expect(uncached.evaluate(owner)).toEqual(first);
});

test('inputs with long client-supplied values are decided but not remembered', () => {
  const long = { ...owner, params: { 'path:userId': ['9'.repeat(3000)] } };
  const first = evaluator.evaluate(long);
  expect(first.allow).toBe(false);
  expect(evaluator.evaluate(long)).not.toBe(first);
  expect(evaluator.evaluate(long)).toEqual(first);
});

test('a warm cache answers exactly what the policy answers, input after input', async () => {
  const uncached = await Evaluator.create(data, { decisionCacheSize: 0 });
  // Values drawn from few characters, so that equal and nearly equal inputs keep coming back.
  const value = fc.string({ unit: fc.constantFrom('3', '1', ':', '#'), maxLength: 3 });
  const input = fc.record({
    operation: fc.constantFrom('GET /users/{userId}', 'PUT /users/{userId}', 'GET /users', 'GET /status'),
    role: fc.oneof(fc.constantFrom('user', 'admin', 'guest'), fc.array(fc.constantFrom('user', 'admin', '3'), { maxLength: 2 })),
    params: fc.record({ 'path:userId': fc.array(fc.option(value, { nil: null }), { maxLength: 2 }) }),
    claims: fc.record({ 'path:userId': fc.array(value, { maxLength: 2 }) }),
  });
  fc.assert(
    fc.property(input, (request) => {
      expect(evaluator.evaluate(request)).toEqual(uncached.evaluate(request));
    }),
    { numRuns: 3000 },
  );
});

test('inputs of shapes the cache does not key are still decided, each time afresh', () => {
  class Params {
    'path:userId' = ['3'];
  }
  const odd = { ...owner, params: new Params() as unknown as Record<string, string[]> };
  const first = evaluator.evaluate(odd);
  expect(first).toEqual(evaluator.evaluate(owner));
  expect(evaluator.evaluate(odd)).not.toBe(first);
});

describe('scopes', () => {
  // Two alternatives: accounts:read, or accounts:admin with accounts:write.
  const scopedData = compileAcl({
    openapi: {
      openapi: '3.1.0',
      info: { title: 'scoped', version: '1' },
      components: { securitySchemes: { oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://idp.example/token', scopes: {} } } } } },
      security: [{ oauth: ['accounts:read'] }, { oauth: ['accounts:write', 'accounts:admin'] }],
      paths: { '/accounts': { get: {} } },
    },
    acl: { anonymous: {}, user: { '/accounts': { 'read:any': ['*'] } } },
  });
  const allowed: PolicyInput = { operation: 'GET /accounts', role: 'user', params: {}, claims: {}, scopes: ['accounts:read'] };
  let scoped: Evaluator;
  beforeEach(async () => {
    scoped = await Evaluator.create(scopedData);
    expect(scoped.evaluate(allowed).allow).toBe(true);
  });

  test.each([
    ['no scopes', []],
    ['another scope', ['accounts:write']],
    ['half of the other alternative', ['accounts:admin']],
    ['two scopes written as one', ['accounts:admin accounts:write']],
    ['the scope in another case', ['Accounts:read']],
  ])('inputs that differ only in scopes (%s) never share the cached allow', (_name, scopes) => {
    expect(scoped.evaluate({ ...allowed, scopes }).allow).toBe(false);
  });

  test('an input without scopes is not the cached allow either', () => {
    const { scopes: _left, ...withoutScopes } = allowed;
    expect(scoped.evaluate(withoutScopes).allow).toBe(false);
  });

  test('a warm cache answers exactly what the policy answers, scopes included', async () => {
    const uncached = await Evaluator.create(scopedData, { decisionCacheSize: 0 });
    const input = fc.record({
      operation: fc.constant('GET /accounts'),
      role: fc.constantFrom('user', 'guest'),
      scopes: fc.uniqueArray(fc.constantFrom('accounts:read', 'accounts:write', 'accounts:admin', 'accounts:admin accounts:write'), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(input, (request) => {
        expect(scoped.evaluate(request)).toEqual(uncached.evaluate(request));
      }),
      { numRuns: 500 },
    );
  });
});

// Cold requests (a new user each time) miss the cache, but the policy grants them the same lists:
// each list is kept once, frozen, so the filter reads its parsed globs and caching freezes nothing.
test('two new callers granted the same lists share one frozen copy of each; other lists stay apart', () => {
  const a = evaluator.evaluate({ ...owner, params: { 'path:userId': ['10'] }, claims: { 'path:userId': ['10'] } });
  const b = evaluator.evaluate({ ...owner, params: { 'path:userId': ['11'] }, claims: { 'path:userId': ['11'] } });
  expect(a).not.toBe(b);
  expect(b.attributes).toBe(a.attributes);
  expect(Object.isFrozen(a.attributes) && Object.isFrozen(a.reasons) && Object.isFrozen(a.scopes)).toBe(true);
  const denied = evaluator.evaluate({ ...owner, params: { 'path:userId': ['12'] }, claims: { 'path:userId': ['13'] } });
  const deniedToo = evaluator.evaluate({ ...owner, params: { 'path:userId': ['14'] }, claims: { 'path:userId': ['15'] } });
  expect(deniedToo.reasons).toBe(denied.reasons);
  expect(denied.attributes).toEqual([]);
  expect(a.attributes).toEqual(['!password', '*']);
});

test('the lists kept are bounded: reasons naming 2,000 unknown roles are each still given, and right', () => {
  for (let i = 0; i < 2000; i++) {
    const decision = evaluator.evaluate({ ...owner, role: `role-${i}` });
    expect(decision.allow).toBe(false);
    expect(decision.reasons.join(' ')).toContain(`role-${i}`);
  }
});
