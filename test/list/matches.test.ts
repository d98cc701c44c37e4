import { matches, type ListPlan } from '../../src/list';
import { refusal, some } from './list-plans';

// matches on rows in memory: equality by value and type, bigints against numbers and canonical
// integer text, nested own properties only, and the refusals.

const FIELDS = { orderId: 'id', customerId: 'customer.id' };

test('all matches every row and none no row', () => {
  expect(matches({ kind: 'all', anyOf: [], attributes: [] }, { id: 1 }, FIELDS)).toBe(true);
  expect(matches({ kind: 'none', anyOf: [], attributes: [] }, { id: 1 }, FIELDS)).toBe(false);
});

test('a row meets an entry when every parameter holds one of its values; some entry is enough', () => {
  const list = some({ orderId: [7, 9], customerId: ['u1'] }, { orderId: [3] });
  expect(matches(list, { id: 7, customer: { id: 'u1' } }, FIELDS)).toBe(true);
  expect(matches(list, { id: 7, customer: { id: 'u2' } }, FIELDS)).toBe(false);
  expect(matches(list, { id: 3, customer: { id: 'u2' } }, FIELDS)).toBe(true);
  expect(matches(list, { id: 8, customer: { id: 'u1' } }, FIELDS)).toBe(false);
});

test.each([
  [7, 7, true],
  [7, 7n, true],
  [7, '7', false],
  ['7', 7, false],
  ['7', 7n, true],
  ['9007199254740993', 9007199254740993n, true],
  ['9007199254740993', 9007199254740992n, false],
  ['9007199254740993', 9007199254740992, false],
  ['9007199254740993', '9007199254740993', true],
  [2 ** 60, 2n ** 60n, true],
  [2 ** 60, 2n ** 60n + 1n, false],
  ['007', 7n, false],
  [1.5, 1.5, true],
  [1.5, 1n, false],
  [0, -0, true],
  [true, true, true],
  [true, 1, false],
  [true, 'true', false],
  ['a', 'a', true],
  ['a', ['a'], false],
  ['a', null, false],
  ['a', undefined, false],
  ['a', { toString: () => 'a' }, false],
])('the plan value %j against the row value %p: %p', (planValue, rowValue, expected) => {
  expect(matches(some({ orderId: [planValue] }), { id: rowValue }, FIELDS)).toBe(expected);
});

test('a dotted path reads own properties only, never the prototype chain', () => {
  const list = some({ customerId: ['function'] });
  expect(matches(some({ customerId: ['u1'] }), { customer: { id: 'u1' } }, FIELDS)).toBe(true);
  expect(matches(some({ customerId: ['u1'] }), { customer: Object.create({ id: 'u1' }) }, FIELDS)).toBe(false);
  expect(matches(some({ orderId: [Object.prototype.toString.name] }), {}, { orderId: 'toString.name' })).toBe(false);
  expect(matches(list, {}, { customerId: 'constructor.name' })).toBe(false);
  expect(matches(some({ customerId: ['x'] }), { customer: 'x' }, FIELDS)).toBe(false);
  expect(matches(some({ customerId: ['x'] }), null, FIELDS)).toBe(false);
  expect(matches(some({ orderId: [1] }), JSON.parse('{"__proto__":{"id":1}}'), { orderId: '__proto__.id' })).toBe(true);
  expect(matches(some({ orderId: [1] }), [1], { orderId: '0' })).toBe(true);
});

test('an unmapped parameter, a bad field and a malformed plan are ListPlanErrors', () => {
  const code = (call: () => unknown) => refusal(call).code;
  expect(code(() => matches(some({ other: [1] }), {}, FIELDS))).toBe('ERR_SVCGATE_LIST_FIELD');
  expect(code(() => matches(some({ orderId: [1] }), {}, { orderId: 'a..b' }))).toBe('ERR_SVCGATE_LIST_FIELD');
  expect(code(() => matches({ kind: 'some', anyOf: [{ orderId: [] }], attributes: [] }, {}, FIELDS))).toBe('ERR_SVCGATE_LIST_PLAN');
  expect(code(() => matches({ kind: 'maybe' } as never, {}, FIELDS))).toBe('ERR_SVCGATE_LIST_PLAN');
});

/** A frozen plan as the decisions hand it out, behind a proxy that counts its property reads. */
function countedFrozenPlan(values: number): { list: ListPlan; reads: () => number } {
  let reads = 0;
  const count = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, key, receiver) {
        reads++;
        return Reflect.get(object, key, receiver) as unknown;
      },
    });
  const orderIds = count(Object.freeze(Array.from({ length: values }, (_, index) => index)));
  const entry = count(Object.freeze({ orderId: orderIds }));
  const list = count(Object.freeze({ kind: 'some' as const, anyOf: count(Object.freeze([entry])), attributes: Object.freeze([]) }));
  return { list: list as unknown as ListPlan, reads: () => reads };
}

test('a frozen plan is read once for many rows, not once per row', () => {
  const { list, reads } = countedFrozenPlan(10_000);
  expect(matches(list, { id: 5 }, FIELDS)).toBe(true);
  const first = reads();
  expect(first).toBeGreaterThan(10_000);
  for (let id = 0; id < 3000; id++) expect(matches(list, { id: id * 7 }, FIELDS)).toBe(id * 7 < 10_000);
  // The same mapping in a new object each call, as an object literal written in the call gives it.
  for (let id = 0; id < 3000; id++) expect(matches(list, { id }, { orderId: 'id' })).toBe(true);
  expect(reads()).toBe(first);
  // Other fields, or the same object changed, are read again.
  expect(matches(list, { order: 5 }, { orderId: 'order' })).toBe(true);
  const fields = { orderId: 'id' };
  matches(list, { id: 1 }, fields);
  fields.orderId = 'other';
  expect(matches(list, { other: 2, id: 1 }, fields)).toBe(true);
  expect(matches(list, { other: -2, id: 1 }, fields)).toBe(false);
});

test('a plan that is not frozen is read on every call, so a change to it counts', () => {
  const list = some({ orderId: [1] });
  expect(matches(list, { id: 2 }, FIELDS)).toBe(false);
  list.anyOf[0]!.orderId!.push(2);
  expect(matches(list, { id: 2 }, FIELDS)).toBe(true);
});
