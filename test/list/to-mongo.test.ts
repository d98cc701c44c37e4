import { find } from 'mingo';
import { toMongo } from '../../src/list';
import { refusal, some } from './list-plans';

// toMongo's filters, case by case, and run by mingo (a MongoDB query engine).

const docs = [
  { _id: 1, orderId: 7, customer: { id: 'u1' } },
  { _id: 2, orderId: 9, customer: { id: 'u2' } },
  { _id: 3, orderId: '9007199254740993', customer: { id: 'u1' } },
];
const ids = (filter: Record<string, unknown>) => find(docs, filter).all().map((doc) => doc._id);

test('all is {}, none a filter no document meets, some an $or of $in conditions', () => {
  expect(toMongo({ kind: 'all', anyOf: [], attributes: [] }, {})).toEqual({});
  expect(toMongo({ kind: 'none', anyOf: [], attributes: [] }, {})).toEqual({ _id: { $in: [] } });
  expect(ids(toMongo({ kind: 'all', anyOf: [], attributes: [] }, {}))).toEqual([1, 2, 3]);
  expect(ids(toMongo({ kind: 'none', anyOf: [], attributes: [] }, {}))).toEqual([]);
  const list = some({ orderId: [7, '9007199254740993'], customerId: ['u1'] }, { orderId: [9] });
  const fields = { orderId: 'orderId', customerId: 'customer.id' };
  expect(toMongo(list, fields)).toEqual({ $or: [{ orderId: { $in: [7, '9007199254740993'] }, 'customer.id': { $in: ['u1'] } }, { orderId: { $in: [9] } }] });
  expect(ids(toMongo(list, fields))).toEqual([1, 2, 3]);
  expect(ids(toMongo(some({ orderId: [7, 9], customerId: ['u2'] }), fields))).toEqual([2]);
});

test('two parameters of one entry on one field are an $and, neither replacing the other', () => {
  const filter = toMongo(some({ orderId: [7], otherId: [9] }), { orderId: 'orderId', otherId: 'orderId' });
  expect(filter).toEqual({ $or: [{ $and: [{ orderId: { $in: [7] } }, { orderId: { $in: [9] } }] }] });
  expect(ids(filter)).toEqual([]);
});

test('a field named __proto__ is a field of the filter, not its prototype', () => {
  const filter = toMongo(some({ orderId: [7] }), { orderId: '__proto__' });
  const entry = (filter.$or as object[])[0]!;
  expect(Object.keys(entry)).toEqual(['__proto__']);
  expect(Object.getPrototypeOf(entry)).toBe(Object.prototype);
  const two = toMongo(some({ orderId: [7], customerId: ['u1'] }), { orderId: '__proto__', customerId: 'customer.id' });
  expect(Object.keys((two.$or as object[])[0]!)).toEqual(['__proto__', 'customer.id']);
});

test('a lone surrogate, which BSON would write as U+FFFD, is left out of $in', () => {
  expect(toMongo(some({ customerId: ['\uD800', 'u1'] }), { customerId: 'c' })).toEqual({ $or: [{ c: { $in: ['u1'] } }] });
});

test.each([
  ['', 'empty'],
  ['a..b', 'an empty part'],
  ['$where', 'an operator'],
  ['a.$id', 'an operator part'],
  ['a\u0000', 'a NUL'],
])('the field %j (%s) is refused with ERR_SVCGATE_LIST_FIELD', (field) => {
  expect(refusal(() => toMongo(some({ orderId: [7] }), { orderId: field })).code).toBe('ERR_SVCGATE_LIST_FIELD');
});

test('an unmapped parameter and a malformed plan are refused', () => {
  const unmapped = refusal(() => toMongo(some({ orderId: [7] }), {}));
  expect(unmapped.code).toBe('ERR_SVCGATE_LIST_FIELD');
  expect(unmapped.message).toMatch(/^the list plan's parameter "orderId" has no field in fields\. Fix: .*fields: \{ "orderId": '<field name>' \}/);
  expect(refusal(() => toMongo(some({ toString: [7] }), {})).code).toBe('ERR_SVCGATE_LIST_FIELD');
  expect(refusal(() => toMongo({ kind: 'some', anyOf: [{}], attributes: [] }, { orderId: 'o' })).code).toBe('ERR_SVCGATE_LIST_PLAN');
});

test('values are data, never operators: an operator-like string is a literal, an object or a regex is refused', () => {
  const stored = [...docs, { _id: 4, orderId: '$where' }, { _id: 5, orderId: { $ne: null } }];
  const filter = toMongo(some({ orderId: ['$where', '{"$ne":null}'] }), { orderId: 'orderId' });
  expect(find(stored, filter).all().map((doc) => doc._id)).toEqual([4]);
  for (const value of [{ $ne: null }, /./, [7], null, Number.NaN, 7n]) {
    expect(refusal(() => toMongo(some({ orderId: [value as never] }), { orderId: 'orderId' })).code).toBe('ERR_SVCGATE_LIST_PLAN');
  }
});
