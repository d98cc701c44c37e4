import fc from 'fast-check';
import { preListPolicyWasm } from '../helpers/pre-list-policy';
import { compileAcl, Evaluator, type DataDocument } from '../../src/policy';
import { configErrorOf } from '../helpers/config-error-of';
import { buildInput, type VerifiedPayload } from '../../src/policy/request/build-input';
import { bearerApi } from '../helpers/bearer-api';

/** An orders API: GET /orders lists GET /orders/{orderId}, whose id is owned through the claim `orders`. */
function api(listOperation: Record<string, unknown> = { 'x-acl-list': { item: '/orders/{orderId}' } }, item: Record<string, unknown> = {}, extraPaths: Record<string, unknown> = {}) {
  return bearerApi({
    '/orders': { get: listOperation, post: {} },
    '/orders/{orderId}': { get: { parameters: [{ name: 'orderId', in: 'path', required: true, schema: { type: 'integer' }, 'x-acl-binding': 'orders' }], ...item } },
    ...extraPaths,
  }, 'orders', { openapi: '3.1.0', scheme: 'bearer' });
}

const ACL = {
  anonymous: {},
  support: { '/orders/{orderId}': { 'read:any': ['*'] } },
  customer: { '/orders/{orderId}': { 'read:own': ['*', '!note'] }, '/orders': { 'create:any': ['*'] } },
  trainee: { $extend: ['customer'] },
  guest: {},
};

function planFor(data: DataDocument, evaluator: Evaluator, payload: VerifiedPayload) {
  return evaluator.evaluate(buildInput('GET /orders', data.operations['GET /orders']!, {}, payload));
}

describe('declaring a list (x-acl-list)', () => {
  test('the list operation is decided with the item: its resource, read, its owned parameters', () => {
    const data = compileAcl({ openapi: api(), acl: ACL });
    const list = data.operations['GET /orders']!;
    expect(list).toMatchObject({ resource: '/orders/{orderId}', action: 'read', list: { item: 'GET /orders/{orderId}', params: { 'path:orderId': { name: 'orderId', type: 'integer', binding: 'orders' } } } });
    expect(list.grants).toBe(data.operations['GET /orders/{orderId}']!.grants);
  });

  test('the token must meet the scopes of both operations', () => {
    const doc = api({ 'x-acl-list': { item: '/orders/{orderId}' }, security: [{ bearer: ['orders:list'] }, { bearer: ['admin'] }] }, { security: [{ bearer: ['orders:read'] }] });
    const data = compileAcl({ openapi: doc, acl: ACL });
    expect(data.operations['GET /orders']!.scopes).toEqual([
      ['orders:list', 'orders:read'],
      ['admin', 'orders:read'],
    ]);
  });

  test.each([
    ['a key other than item', { 'x-acl-list': { item: '/orders/{orderId}', where: 'x' } }, {}, /x-acl-list/],
    ['an item that is not a path', { 'x-acl-list': { item: 'orders' } }, {}, /must be a path of this document/],
    ['an item without GET', { 'x-acl-list': { item: '/nowhere/{id}' } }, {}, /has no GET operation in this document/],
    ['an item that is not text', { 'x-acl-list': { item: ['/orders/{orderId}'] } }, {}, /item must be the path of the item operation/],
    ['an x-acl-list with a key it does not know', { 'x-acl-list': { item: '/orders/{orderId}', where: 'owner = 1' } }, {}, /Unrecognized key: "where"/],
    ['an x-acl-list that is no mapping', { 'x-acl-list': null }, {}, /expected object, received null/],
    ['an item path /__proto__, which every object inherits', { 'x-acl-list': { item: '/__proto__' } }, {}, /names "\/__proto__", which has no GET operation/],
    ['the item path with another parameter name', { 'x-acl-list': { item: '/orders/{id}' } }, {}, /names "\/orders\/\{id\}", which has no GET operation/],
    ['an unsecured list', { 'x-acl-list': { item: '/orders/{orderId}' }, security: [] }, {}, /GET \/orders is not secured/],
    ['an unsecured item', { 'x-acl-list': { item: '/orders/{orderId}' } }, { security: [] }, /GET \/orders\/\{orderId\} is not secured/],
    ['an item that needs another scheme beside the bearer token', { 'x-acl-list': { item: '/orders/{orderId}' } }, { security: [{ bearer: [], apiKey: [] }] }, /GET \/orders\/\{orderId\} needs apiKey beside the bearer scheme, which GET \/orders does not/],
    ['an owned parameter on the list', { 'x-acl-list': { item: '/orders/{orderId}' }, parameters: [{ name: 'customer', in: 'query', 'x-acl-binding': 'sub' }] }, {}, /owned query parameter customer and x-acl-list/],
  ])('%s is a ConfigError', (_name, listOperation, item, message) => {
    const error = configErrorOf(() => compileAcl({ openapi: api(listOperation, item), acl: ACL }));
    expect(error.message).toMatch(message);
    expect(error.path).toMatch(/x-acl-list|\$/);
  });

  test('a list that asks for the schemes its item combines with the bearer scheme (or more) compiles', () => {
    const both = [{ bearer: [], apiKey: [] }];
    expect(() => compileAcl({ openapi: api({ 'x-acl-list': { item: '/orders/{orderId}' }, security: both }, { security: both }), acl: ACL })).not.toThrow();
    const more = [{ bearer: [], apiKey: [], mtls: [] }];
    expect(() => compileAcl({ openapi: api({ 'x-acl-list': { item: '/orders/{orderId}' }, security: more }, { security: [{ bearer: [], mtls: [] }, { bearer: [], apiKey: [] }] }), acl: ACL })).not.toThrow();
    const error = configErrorOf(() => compileAcl({ openapi: api({ 'x-acl-list': { item: '/orders/{orderId}' }, security: [{ bearer: [], mtls: [] }] }, { security: both }), acl: ACL }));
    expect(error.fix).toBe('give GET /orders the item\'s security requirement (the bearer scheme with apiKey)');
  });

  test('an item path that is not in the document is shown quoted, escaped and cut short: the document is untrusted input', () => {
    const error = configErrorOf(() => compileAcl({ openapi: api({ 'x-acl-list': { item: `/${'x'.repeat(100_000)}\u0000\u202e` } }), acl: ACL }));
    expect(error.message.length).toBeLessThan(2_000);
    expect(error.message).not.toMatch(/[\u0000\u202e]/);
  });

  test('x-acl-list on another method, an item that is itself a list, an array-owned item are ConfigErrors', () => {
    const onPost = api(undefined, {}, { '/carts': { post: { 'x-acl-list': { item: '/orders/{orderId}' } } } });
    expect(configErrorOf(() => compileAcl({ openapi: onPost, acl: ACL })).message).toMatch(/only a GET operation lists items/);
    const chained = api(undefined, {}, { '/all-orders': { get: { 'x-acl-list': { item: '/orders' } } } });
    expect(configErrorOf(() => compileAcl({ openapi: chained, acl: ACL })).message).toMatch(/is itself a list operation/);
    const arrayItem = api(undefined, { parameters: [{ name: 'orderId', in: 'path', required: true, schema: { type: 'array', items: { type: 'integer' } } }] });
    expect(configErrorOf(() => compileAcl({ openapi: arrayItem, acl: ACL })).message).toMatch(/of type array, which a row's column cannot hold/);
  });

  test("a read grant on the list's own path is refused and says where it belongs", () => {
    const error = configErrorOf(() => compileAcl({ openapi: api(), acl: { ...ACL, support: { '/orders': { 'read:any': ['*'] } } } }));
    expect(error.message).toMatch(/read:any of support on \/orders decides nothing: GET \/orders lists \/orders\/\{orderId\}/);
    expect(error.fix).toBe('move the grant to /orders/{orderId}');
  });

  test("the built-in anonymous default opens a list operation only with its item", () => {
    const { anonymous: _, ...withoutAnonymous } = ACL;
    const data = compileAcl({ openapi: api(), acl: withoutAnonymous, strict: false });
    const evaluator = Evaluator.createSync(data);
    expect(planFor(data, evaluator, {})).toMatchObject({ allow: false, list: { kind: 'none' } });
  });
});

describe('the plan', () => {
  const data = compileAcl({ openapi: api(), acl: ACL });
  const evaluator = Evaluator.createSync(data);

  test('read:any lists all, with the attributes of the item', () => {
    expect(planFor(data, evaluator, { role: 'support' })).toMatchObject({ allow: true, possession: 'any', list: { kind: 'all', anyOf: [], attributes: ['*'] } });
  });

  test('read:own lists the claimed values, typed by the item parameter schema', () => {
    const decision = planFor(data, evaluator, { role: 'customer', orders: [9, '7', '007', 'seven', 7.5, '9007199254740993', 9007199254740993] });
    expect(decision.list).toEqual({ kind: 'some', anyOf: [{ orderId: [7, 9, '9007199254740993'] }], attributes: ['!note', '*'] });
    expect(decision.allow).toBe(true);
  });

  test('$extend carries the own grant into the plan', () => {
    expect(planFor(data, evaluator, { role: 'trainee', orders: '3' }).list).toMatchObject({ kind: 'some', anyOf: [{ orderId: [3] }] });
  });

  test('no grant, or own without a value, is none and a deny with a reason', () => {
    expect(planFor(data, evaluator, { role: 'guest', orders: [1] })).toMatchObject({ allow: false, list: { kind: 'none', anyOf: [], attributes: [] }, reasons: ['no role of the caller is granted read on /orders/{orderId}'] });
    for (const orders of [undefined, [], ['x'], 9007199254740993]) {
      const decision = planFor(data, evaluator, { role: 'customer', orders });
      expect(decision).toMatchObject({ allow: false, list: { kind: 'none' } });
      expect(decision.reasons[0]).toMatch(/^read:own lists nothing: the token holds no value of claim orders/);
    }
  });

  test('a cached plan cannot be changed by the handler it was given to', () => {
    const first = planFor(data, evaluator, { role: 'customer', orders: [1, 2] });
    const again = planFor(data, evaluator, { role: 'customer', orders: [1, 2] });
    expect(() => (again.list!.anyOf[0]!.orderId as unknown[]).push(3)).toThrow(TypeError);
    expect(() => again.list!.anyOf.push({})).toThrow(TypeError);
    expect(planFor(data, evaluator, { role: 'customer', orders: [1, 2] }).list).toEqual(first.list);
  });

  test('a plan is frozen without the decision cache too, so a handler fails the same way either way', () => {
    const uncached = Evaluator.createSync(data, { decisionCacheSize: 0 });
    const plan = planFor(data, uncached, { role: 'customer', orders: [1, 2] }).list!;
    expect(Object.isFrozen(plan) && Object.isFrozen(plan.anyOf) && Object.isFrozen(plan.anyOf[0]) && Object.isFrozen(plan.anyOf[0]!.orderId) && Object.isFrozen(plan.attributes)).toBe(true);
  });

  test('string, boolean and number parameters keep their types', () => {
    const doc = api(undefined, {}, {
      '/shops': { get: { 'x-acl-list': { item: '/shops/{shop}/{open}/{rating}' } } },
      '/shops/{shop}/{open}/{rating}': {
        get: {
          parameters: [
            { name: 'shop', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'open', in: 'path', required: true, schema: { type: 'boolean' }, 'x-acl-binding': 'open' },
            { name: 'rating', in: 'path', required: true, schema: { type: 'number' }, 'x-acl-binding': 'rating' },
          ],
        },
      },
    });
    const data = compileAcl({ openapi: doc, acl: { ...ACL, customer: { '/shops/{shop}/{open}/{rating}': { 'read:own': ['*'] } } } });
    const decision = Evaluator.createSync(data).evaluate(buildInput('GET /shops', data.operations['GET /shops']!, {}, { role: 'customer', shop: ['007', 7], open: [true, 'false', 'yes'], rating: ['4.50', '1e21', 1e21] }));
    expect(decision.list).toEqual({ kind: 'some', anyOf: [{ shop: ['007', '7'], open: [false, true], rating: [1e21, 4.5] }], attributes: ['*'] });
  });
});

test('a policy.wasm without the plan entrypoint (built before list operations) is refused for data with a list, accepted without', async () => {
  const policy = preListPolicyWasm();
  const data = compileAcl({ openapi: api(), acl: ACL });
  await expect(Evaluator.create(data, { policy })).rejects.toThrow('policy.wasm has no entrypoint svcgate/authz/plan, which the list operation GET /orders needs');
  expect(() => Evaluator.createSync(data, { policy })).toThrow(/no entrypoint svcgate\/authz\/plan/);
  await expect(Evaluator.create(data, { policy })).rejects.toMatchObject({ name: 'MissingEntrypointError', code: 'ERR_SVCGATE_POLICY_ENTRYPOINT' });
  const { paths } = api();
  const withoutList = { ...api(), paths: { ...paths, '/orders': { post: {} } } };
  await expect(Evaluator.create(compileAcl({ openapi: withoutList, acl: { ...ACL, customer: { '/orders/{orderId}': { 'read:own': ['*'] } } } }), { policy })).resolves.toBeInstanceOf(Evaluator);
});

/**
 * The property the plan promises: an id is in the plan exactly when GET /orders/{id} is allowed
 * for the same token, whatever the role and the claim's shape.
 */
test('the plan holds exactly the items the per-item decision allows', () => {
  const data = compileAcl({ openapi: api(), acl: ACL });
  const evaluator = Evaluator.createSync(data, { decisionCacheSize: 0 });
  const item = data.operations['GET /orders/{orderId}']!;
  const id = fc.oneof(fc.integer({ min: -3, max: 12 }), fc.constantFrom(9007199254740992, 9007199254740993n));
  const claimValue = fc.oneof(id.map((value) => (typeof value === 'bigint' ? String(value) : value)), id.map(String), fc.constantFrom('x', '', '07', 7.5, null, true, 9007199254740993));
  const claims = fc.oneof(fc.constant(undefined), claimValue, fc.array(claimValue, { maxLength: 5 }));
  const role = fc.oneof(fc.constantFrom('support', 'customer', 'trainee', 'guest', 'nobody'), fc.constant(['guest', 'customer']), fc.constant(undefined));
  const seen = { shown: 0, hidden: 0 };
  fc.assert(
    fc.property(role, claims, fc.array(id, { minLength: 1, maxLength: 8 }), (roleClaim, orders, ids) => {
      const payload: VerifiedPayload = {};
      if (roleClaim !== undefined) payload.role = roleClaim;
      if (orders !== undefined) payload.orders = orders;
      const plan = planFor(data, evaluator, payload);
      for (const value of ids) {
        const perItem = evaluator.evaluate(buildInput('GET /orders/{orderId}', item, { pathParams: { orderId: String(value) } }, payload)).allow;
        const listed = plan.list!.kind === 'all' || (plan.list!.kind === 'some' && plan.list!.anyOf.some((entry) => entry.orderId!.some((planned) => String(planned) === String(value))));
        expect(listed).toBe(perItem);
        if (plan.list!.kind === 'some') seen[perItem ? 'shown' : 'hidden']++;
      }
      expect(plan.allow).toBe(plan.list!.kind !== 'none');
    }),
    { numRuns: 400 },
  );
  // Not vacuous: some plans both listed ids and left others out (an `all` or `none` plan proves nothing of the values).
  expect(seen.shown).toBeGreaterThan(20);
  expect(seen.hidden).toBeGreaterThan(20);
});
