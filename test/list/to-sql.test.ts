import Database from 'better-sqlite3';
import { MAX_SQL_PARAMETERS, toSql, type ListPlan } from '../../src/list';
import { refusal } from './list-plans';

// toSql's text and values, case by case: the shapes (TRUE/FALSE, = for one value, IN for
// several), placeholders and startAt, identifier quoting, and every refusal with its code.
// list-engines.test.ts runs the statements on SQLite and PostgreSQL.

const some = (...anyOf: ListPlan['anyOf']): ListPlan => ({ kind: 'some', anyOf, attributes: ['*'] });
const COLUMNS = { orderId: 'order_id', customerId: 'customer_id' };

test('all and none are TRUE and FALSE in PostgreSQL, 1 = 1 and 1 = 0 in SQLite, with nothing bound', () => {
  const all: ListPlan = { kind: 'all', anyOf: [], attributes: ['*'] };
  const none: ListPlan = { kind: 'none', anyOf: [], attributes: [] };
  expect(toSql(all, { dialect: 'postgres', columns: {} })).toEqual({ text: 'TRUE', values: [] });
  expect(toSql(none, { dialect: 'postgres', columns: {} })).toEqual({ text: 'FALSE', values: [] });
  expect(toSql(all, { dialect: 'sqlite', columns: {} })).toEqual({ text: '1 = 1', values: [] });
  expect(toSql(none, { dialect: 'sqlite', columns: {} })).toEqual({ text: '1 = 0', values: [] });
});

test('one value is =, several are IN, entries are ORed and the parameters of one entry ANDed', () => {
  const list = some({ orderId: [7] }, { orderId: [1, 2], customerId: ['u1'] });
  expect(toSql(list, { dialect: 'postgres', columns: COLUMNS })).toEqual({
    text: '(("order_id" = $1) OR ("order_id" IN ($2, $3) AND "customer_id" = $4))',
    values: [7, 1, 2, 'u1'],
  });
  expect(toSql(list, { dialect: 'sqlite', columns: COLUMNS })).toEqual({
    text: '(("order_id" = ?) OR ("order_id" IN (?, ?) AND "customer_id" = ?))',
    values: [7, 1, 2, 'u1'],
  });
});

test('startAt numbers the placeholders after the query\'s own', () => {
  expect(toSql(some({ orderId: [1, 2] }), { dialect: 'postgres', columns: COLUMNS, startAt: 3 })).toEqual({ text: '("order_id" IN ($3, $4))', values: [1, 2] });
});

test('booleans are bound as given in PostgreSQL and as 1 and 0 in SQLite; unsafe integers as their text', () => {
  const list = some({ open: [true, false], orderId: ['9007199254740993'] });
  const columns = { open: 'open', orderId: 'id' };
  expect(toSql(list, { dialect: 'postgres', columns }).values).toEqual([true, false, '9007199254740993', '9007199254740993']);
  expect(toSql(list, { dialect: 'sqlite', columns }).values).toEqual([1, 0, '9007199254740993']);
});

test('text an engine would read as a number with rounding is compared with the column as text', () => {
  const list = some({ orderId: [7, '9223372036854775808', '9007199254740993'], amount: ['0.10000000000000001'] });
  expect(toSql(list, { dialect: 'postgres', columns: { orderId: 'id', amount: 'amount' } })).toEqual({
    text: '(("id" = $1 OR CAST("id" AS TEXT) = $2 OR ("id" = $3 AND CAST("id" AS TEXT) = $4)) AND CAST("amount" AS TEXT) = $5)',
    values: [7, '9223372036854775808', '9007199254740993', '9007199254740993', '0.10000000000000001'],
  });
  // SQLite reads an integer within 64 bits exactly into every column type: compared by value alone.
  expect(toSql(list, { dialect: 'sqlite', columns: { orderId: 'id', amount: 'amount' } }).text).toBe('(("id" IN (?, ?) OR CAST("id" AS TEXT) = ?) AND CAST("amount" AS TEXT) = ?)');
});

test('a value no driver carries is left out, and an entry left without values selects nothing', () => {
  // A lone surrogate would be sent as U+FFFD; PostgreSQL text holds no NUL.
  expect(toSql(some({ customerId: ['\uD800', 'u1'] }), { dialect: 'sqlite', columns: COLUMNS })).toEqual({ text: '("customer_id" = ?)', values: ['u1'] });
  expect(toSql(some({ customerId: ['a\u0000b'] }), { dialect: 'postgres', columns: COLUMNS })).toEqual({ text: 'FALSE', values: [] });
  expect(toSql(some({ customerId: ['a\u0000b'] }), { dialect: 'sqlite', columns: COLUMNS })).toEqual({ text: '("customer_id" = ?)', values: ['a\u0000b'] });
  expect(toSql(some({ customerId: ['\uDC00'] }, { orderId: [1] }), { dialect: 'postgres', columns: COLUMNS })).toEqual({ text: '("order_id" = $1)', values: [1] });
});

test('column names are quoted identifiers, each dotted part on its own, so no name reads as SQL', () => {
  const columns = { a: 'select', b: 'a"b', c: 'o.customer_id', d: 'x"; DROP TABLE t; --' };
  expect(toSql(some({ a: [1], b: [2], c: [3], d: [4] }), { dialect: 'postgres', columns }).text).toBe(
    '("select" = $1 AND "a""b" = $2 AND "o"."customer_id" = $3 AND "x""; DROP TABLE t; --" = $4)',
  );
});

test.each([
  ['', 'empty'],
  ['a..b', 'an empty dotted part'],
  ['.a', 'a leading dot'],
  ['a\u0000b', 'a NUL'],
  ['a\uD800', 'a lone surrogate'],
])('the column name %j (%s) is refused with ERR_SVCGATE_LIST_COLUMN', (column) => {
  const error = refusal(() => toSql(some({ orderId: [1] }), { dialect: 'sqlite', columns: { orderId: column } }));
  expect(error.code).toBe('ERR_SVCGATE_LIST_COLUMN');
  expect(error.message).toContain('columns["orderId"]');
});

test('a parameter without a column is an error naming it and the fix, in any entry, never a dropped condition', () => {
  const error = refusal(() => toSql(some({ orderId: [1] }, { orderId: [2], customerId: ['u1'] }), { dialect: 'postgres', columns: { orderId: 'id' } }));
  expect(error.code).toBe('ERR_SVCGATE_LIST_COLUMN');
  expect(error.message).toBe(
    'the list plan\'s parameter "customerId" has no column in columns. Fix: map every owned parameter of the item operation to its column, e.g. columns: { "customerId": \'<column name>\' }',
  );
  // Even when that entry's values would all be left out.
  expect(refusal(() => toSql(some({ orderId: ['\uD800'], customerId: ['u1'] }), { dialect: 'postgres', columns: { orderId: 'id' } })).code).toBe('ERR_SVCGATE_LIST_COLUMN');
});

test('only the columns map\'s own properties count: constructor and __proto__ are not mapped by Object.prototype', () => {
  expect(refusal(() => toSql(some({ constructor: [1] }), { dialect: 'sqlite', columns: {} })).code).toBe('ERR_SVCGATE_LIST_COLUMN');
  const plan = JSON.parse('{"kind":"some","anyOf":[{"__proto__":[1]}],"attributes":[]}') as ListPlan;
  expect(refusal(() => toSql(plan, { dialect: 'sqlite', columns: {} })).code).toBe('ERR_SVCGATE_LIST_COLUMN');
  // Nor by any other prototype, polluted or inherited.
  expect(refusal(() => toSql(some({ orderId: [1] }), { dialect: 'sqlite', columns: Object.create({ orderId: 'id' }) as Record<string, string> })).code).toBe('ERR_SVCGATE_LIST_COLUMN');
  const columns = JSON.parse('{"__proto__":"owner"}') as Record<string, string>;
  expect(toSql(plan, { dialect: 'sqlite', columns })).toEqual({ text: '("owner" = ?)', values: [1] });
});

test.each([
  [{ kind: 'any', anyOf: [], attributes: [] }, 'kind'],
  [{ kind: 'some', anyOf: [], attributes: [] }, 'anyOf'],
  [{ kind: 'some', anyOf: [{}], attributes: [] }, 'anyOf[0]'],
  [{ kind: 'some', anyOf: [{ orderId: [] }], attributes: [] }, 'anyOf[0]["orderId"]'],
  [{ kind: 'some', anyOf: [{ orderId: [1] }, { orderId: 7 }], attributes: [] }, 'anyOf[1]["orderId"]'],
  [{ kind: 'some', anyOf: [{ orderId: [null] }], attributes: [] }, 'anyOf[0]["orderId"][0]'],
  [{ kind: 'some', anyOf: [{ orderId: [Number.NaN] }], attributes: [] }, 'anyOf[0]["orderId"][0]'],
  [{ kind: 'some', anyOf: [{ orderId: [Infinity] }], attributes: [] }, 'anyOf[0]["orderId"][0]'],
  [{ kind: 'some', anyOf: [{ orderId: [7n] }], attributes: [] }, 'anyOf[0]["orderId"][0]'],
  [{ kind: 'some', anyOf: [{ orderId: [{}] }], attributes: [] }, 'anyOf[0]["orderId"][0]'],
  [{ kind: 'all', anyOf: [{ orderId: [1] }], attributes: [] }, 'anyOf'],
  [{ kind: 'none', anyOf: [{ orderId: [1] }], attributes: [] }, 'anyOf'],
  [{ kind: 'some', anyOf: [[1]], attributes: [] }, 'anyOf[0]'],
  [{ kind: 'all', anyOf: [] }, 'attributes'],
  [{ kind: 'all', anyOf: {}, attributes: [] }, 'anyOf'],
  [null, 'the list plan'],
  ['all', 'the list plan'],
  [[], 'the list plan'],
])('a malformed plan (%#) is refused with ERR_SVCGATE_LIST_PLAN at %s', (plan, where) => {
  const error = refusal(() => toSql(plan as unknown as ListPlan, { dialect: 'postgres', columns: COLUMNS }));
  expect(error.code).toBe('ERR_SVCGATE_LIST_PLAN');
  expect(error.message.startsWith(`list plan ${where} is `)).toBe(true);
  expect(error.message).toMatch(/\. Fix: pass the `list` a decision carries/);
});

test('a refusal shows the value it refused, never the whole plan', () => {
  expect(refusal(() => toSql({ kind: 'some', anyOf: [{ id: [1, 7n] }], attributes: [] } as never, { dialect: 'sqlite', columns: {} })).problem).toBe(
    'list plan anyOf[0]["id"][1] is the bigint 7, not a string, a finite number or a boolean',
  );
  expect(refusal(() => toSql({ kind: 'some', anyOf: {}, attributes: [] } as never, { dialect: 'sqlite', columns: {} })).problem).toBe('list plan anyOf is an object with 0 keys, not an array');
  expect(refusal(() => toSql({ kind: 'x'.repeat(1000), anyOf: [], attributes: [] } as never, { dialect: 'sqlite', columns: {} })).problem.length).toBeLessThan(300);
});

test.each([
  [{ dialect: 'mysql', columns: {} }, 'dialect is "mysql"'],
  [{ columns: {} }, 'dialect is (undefined)'],
  [{ dialect: 'postgres', columns: {}, startAt: 0 }, 'startAt is 0'],
  [{ dialect: 'postgres', columns: {}, startAt: 1.5 }, 'startAt is 1.5'],
  [{ dialect: 'postgres', columns: {}, startAt: '2' }, 'startAt is "2"'],
  [{ dialect: 'postgres', columns: {}, startAt: 65536 }, 'startAt is 65536'],
  [{ dialect: 'sqlite', columns: {}, startAt: 2 }, 'startAt numbers $n placeholders'],
  [null, "toSql's options are null"],
])('the options %j are refused with ERR_SVCGATE_LIST_OPTIONS', (options, message) => {
  const error = refusal(() => toSql({ kind: 'all', anyOf: [], attributes: [] }, options as never));
  expect(error.code).toBe('ERR_SVCGATE_LIST_OPTIONS');
  expect(error.message.startsWith(message)).toBe(true);
});

test('columns that are not an object, or map a parameter to something other than a name, are ERR_SVCGATE_LIST_COLUMN', () => {
  expect(refusal(() => toSql(some({ orderId: [1] }), { dialect: 'sqlite', columns: null as never })).message).toMatch(/^columns is null, not an object/);
  expect(refusal(() => toSql(some({ orderId: [1] }), { dialect: 'sqlite', columns: ['id'] as never })).message).toMatch(/^columns is an array/);
  expect(refusal(() => toSql(some({ orderId: [1] }), { dialect: 'sqlite', columns: { orderId: 7 } as never })).message).toMatch(/^columns\["orderId"\] is a number, not a column name/);
});

test('a plan binding more values than the engine accepts is ERR_SVCGATE_LIST_SIZE, counted with startAt', () => {
  const values = (count: number) => Array.from({ length: count }, (_, index) => index);
  expect(MAX_SQL_PARAMETERS).toEqual({ sqlite: 32766, postgres: 65535 });
  expect(toSql(some({ orderId: values(32766) }), { dialect: 'sqlite', columns: COLUMNS }).values).toHaveLength(32766);
  const sqlite = refusal(() => toSql(some({ orderId: values(20000) }, { customerId: ['a', ...values(12766).map(String)] }), { dialect: 'sqlite', columns: COLUMNS }));
  expect(sqlite.code).toBe('ERR_SVCGATE_LIST_SIZE');
  expect(sqlite.message).toMatch(/^the list plan binds 32767 values, more than the 32766 SQLite accepts in one statement\. Fix: /);
  expect(toSql(some({ orderId: values(65535) }), { dialect: 'postgres', columns: COLUMNS }).values).toHaveLength(65535);
  expect(refusal(() => toSql(some({ orderId: values(65536) }), { dialect: 'postgres', columns: COLUMNS })).code).toBe('ERR_SVCGATE_LIST_SIZE');
  expect(refusal(() => toSql(some({ orderId: values(65535) }), { dialect: 'postgres', columns: COLUMNS, startAt: 2 })).message).toMatch(/more than the 65534 PostgreSQL accepts in one statement after \$1\./);
});

test('a plan of thousands of entries nests its ORs by 64, so no chain is longer', () => {
  const list = some(...Array.from({ length: 5000 }, (_, index) => ({ orderId: [index] })));
  const { text, values } = toSql(list, { dialect: 'sqlite', columns: COLUMNS });
  expect(values).toHaveLength(5000);
  const longest = Math.max(...text.split(/[()]/).map((part) => part.split(' OR ').length));
  expect(longest).toBeLessThanOrEqual(64);
});

test("a plan of several entries is one operand: ANDed into the app's WHERE without parentheses it keeps the app's own condition (real SQLite)", () => {
  const db = new Database(':memory:');
  db.exec("CREATE TABLE orders (order_id INTEGER, customer_id TEXT, status TEXT); INSERT INTO orders VALUES (7, 'u1', 'open'), (7, 'u1', 'closed'), (1, 'u1', 'closed'), (2, 'u1', 'open')");
  const { text, values } = toSql(some({ orderId: [7] }, { orderId: [1, 2], customerId: ['u1'] }), { dialect: 'sqlite', columns: COLUMNS });
  const rows = db.prepare(`SELECT order_id FROM orders WHERE status = 'open' AND ${text} ORDER BY order_id`).pluck().all(...values);
  expect(rows).toEqual([2, 7]);
  db.close();
});
