import Database from 'better-sqlite3';
import fc from 'fast-check';
import { find } from 'mingo';
import { matches, toMongo, toSql, type ListPlan, type ListValue } from '../../src/list';
import { startPglite, type PgliteProcess } from '../helpers/pglite-process';

// svcgate/list on the real engines: for random plans over a few thousand random rows, the rows
// SQLite (better-sqlite3) and PostgreSQL (PGlite) select with `WHERE <toSql text>` are exactly the
// rows `matches` accepts, and mingo (a MongoDB query engine) selects the same with toMongo's
// filter. The columns are named to need quoting (`select`, `a"b`) and read through a table alias
// (`o.order_id`); the ids go beyond 2^53 and to both ends of 64 bits, stored as INTEGER / BIGINT.

const TWO_53 = 2n ** 53n;
const TWO_63 = 2n ** 63n;
const NOTABLE_IDS = [0n, 1n, 7n, -7n, 42n, TWO_53 - 1n, TWO_53, TWO_53 + 1n, -(TWO_53 + 1n), 2n ** 60n, 2n ** 60n + 1n, TWO_63 - 1n, -TWO_63];
const OWNERS = ['u1', 'u2', 'u3', 'u10', '', '7', '007', ' 7', '9007199254740993', 'select', "o'k", 'a"b', '\u00e9t\u00e9', '\u{1F600}'];
const AMOUNTS = [0, 0.1, 0.5, 1, 1.5, 2, -3.25, 1e21, 2 ** 60];
const ROW_COUNT = 3000;

const COLUMNS = { orderId: 'o.order_id', customerId: 'select', open: 'open', amount: 'a"b' };
const FIELDS = { orderId: 'order.id', customerId: 'select', open: 'open', amount: 'a"b' };

interface Row {
  id: bigint;
  owner: string;
  open: boolean;
  amount: number;
}

/** A value as the plan types it (the design's rule): a number when a double prints back as the same text, else the text. */
function typedInteger(id: bigint): ListValue {
  const text = String(id);
  return String(Number(text)) === text ? Number(text) : text;
}

function makeRows(): Row[] {
  const random = fc.sample(
    fc.record({
      id: fc.oneof(fc.bigInt({ min: -1000n, max: 1000n }), fc.bigInt({ min: -TWO_63, max: TWO_63 - 1n }), fc.bigInt({ min: TWO_53 - 50n, max: TWO_53 + 50n })),
      owner: fc.constantFrom(...OWNERS),
      open: fc.boolean(),
      amount: fc.constantFrom(...AMOUNTS),
    }),
    { numRuns: ROW_COUNT * 4, seed: 30 },
  );
  const seen = new Set<bigint>();
  const rows: Row[] = [];
  for (const [index, id] of NOTABLE_IDS.entries()) rows.push({ id, owner: OWNERS[index % OWNERS.length]!, open: index % 2 === 0, amount: AMOUNTS[index % AMOUNTS.length]! });
  for (const row of rows) seen.add(row.id);
  for (const row of random) {
    if (seen.has(row.id) || rows.length === ROW_COUNT) continue;
    seen.add(row.id);
    rows.push(row);
  }
  return rows;
}

const rows = makeRows();
const asRecord = (row: Row) => ({ order: { id: row.id }, select: row.owner, open: row.open, 'a"b': row.amount });
/** As a MongoDB driver reads them back: an integer as a number where a double holds it, else its text (mingo has no Long). */
const documents = rows.map((row) => ({ _id: String(row.id), order: { id: typedInteger(row.id) }, select: row.owner, open: row.open, 'a"b': row.amount }));

const anyIds = rows.map((row) => row.id);
const integerValue = fc.oneof(
  fc.constantFrom(...anyIds).map(typedInteger),
  fc.bigInt({ min: -TWO_63, max: TWO_63 - 1n }).map(typedInteger),
  // Beyond 64 bits: no row holds them, and SQLite would read the text as a REAL (-2^63 - 1 -> the row -2^63).
  fc.constantFrom('-9223372036854775809', '9223372036854775808', '99999999999999999999', '18446744073709551616'),
);
const ownerValue = fc.oneof(fc.constantFrom(...OWNERS), fc.constantFrom('u4', '8', '1e3', '-0', '+7', 'x'));
// Non-shortest decimals stay text in a plan; 0.10000000000000001 would equal the double 0.1 in a REAL column.
const amountValue = fc.oneof(fc.constantFrom(...AMOUNTS), fc.constantFrom('0.10000000000000001', '1.00000000000000000001', '1.50', 7));
const values = <T>(arbitrary: fc.Arbitrary<T>) => fc.array(arbitrary, { minLength: 1, maxLength: 6 });
const condition = fc.record(
  { orderId: values(integerValue), customerId: values(ownerValue), open: values(fc.boolean()), amount: values(amountValue) },
  { requiredKeys: [] },
).filter((entry) => Object.keys(entry).length > 0);
const plan: fc.Arbitrary<ListPlan> = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom<ListPlan>({ kind: 'all', anyOf: [], attributes: ['*'] }, { kind: 'none', anyOf: [], attributes: [] }) },
  { weight: 8, arbitrary: fc.array(condition, { minLength: 1, maxLength: 4 }).map((anyOf): ListPlan => ({ kind: 'some', anyOf, attributes: ['*'] })) },
);

function deepFrozen(list: ListPlan): ListPlan {
  for (const entry of list.anyOf) Object.values(entry).forEach((values) => Object.freeze(values));
  list.anyOf.forEach((entry) => Object.freeze(entry));
  return Object.freeze({ ...list, anyOf: Object.freeze(list.anyOf) }) as ListPlan;
}

let sqlite: Database.Database;
let pg: PgliteProcess;

beforeAll(async () => {
  sqlite = new Database(':memory:');
  sqlite.defaultSafeIntegers(true);
  sqlite.exec('CREATE TABLE orders (order_id INTEGER PRIMARY KEY, "select" TEXT NOT NULL, open BOOLEAN NOT NULL, "a""b" REAL NOT NULL)');
  const insert = sqlite.prepare('INSERT INTO orders VALUES (?, ?, ?, ?)');
  sqlite.transaction(() => rows.forEach((row) => insert.run(row.id, row.owner, row.open ? 1 : 0, row.amount)))();

  pg = await startPglite();
  await pg.exec('CREATE TABLE orders (order_id BIGINT PRIMARY KEY, "select" TEXT NOT NULL, open BOOLEAN NOT NULL, "a""b" DOUBLE PRECISION NOT NULL)');
  for (let start = 0; start < rows.length; start += 1000) {
    const chunk = rows.slice(start, start + 1000);
    const tuples = chunk.map((_, index) => `($${index * 4 + 1}, $${index * 4 + 2}, $${index * 4 + 3}, $${index * 4 + 4})`);
    await pg.query(`INSERT INTO orders VALUES ${tuples.join(', ')}`, chunk.flatMap((row) => [String(row.id), row.owner, row.open, row.amount]));
  }
}, 120_000);

afterAll(async () => {
  sqlite?.close();
  await pg?.stop();
});

const sorted = (ids: Iterable<string>) => [...ids].sort();
const sqliteIds = (list: ListPlan): string[] => {
  const { text, values } = toSql(list, { dialect: 'sqlite', columns: COLUMNS });
  return sorted((sqlite.prepare(`SELECT CAST(o.order_id AS TEXT) AS id FROM orders o WHERE ${text}`).all(...values) as { id: string }[]).map((row) => row.id));
};
const pgIds = async (list: ListPlan): Promise<string[]> => {
  const { text, values } = toSql(list, { dialect: 'postgres', columns: COLUMNS });
  return sorted((await pg.query<{ id: string }>(`SELECT o.order_id::text AS id FROM orders o WHERE ${text}`, values)).map((row) => row.id));
};
const matchedIds = (list: ListPlan): string[] => sorted(rows.filter((row) => matches(list, asRecord(row), FIELDS)).map((row) => String(row.id)));
const mingoIds = (list: ListPlan): string[] => sorted(find(documents, toMongo(list, FIELDS)).all().map((document) => String(document._id)));

test('the table holds the rows, ids beyond 2^53 and at both ends of 64 bits exactly', async () => {
  expect(rows.length).toBe(ROW_COUNT);
  const expected = sorted(rows.map((row) => String(row.id)));
  expect(sqliteIds({ kind: 'all', anyOf: [], attributes: [] })).toEqual(expected);
  expect(await pgIds({ kind: 'all', anyOf: [], attributes: [] })).toEqual(expected);
  expect(matchedIds({ kind: 'all', anyOf: [], attributes: [] })).toEqual(expected);
  expect(mingoIds({ kind: 'all', anyOf: [], attributes: [] })).toEqual(expected);
});

test('for random plans, SQLite, PostgreSQL and mingo select exactly the rows matches accepts', async () => {
  let nonEmpty = 0;
  await fc.assert(
    // Frozen, as the guard hands plans out (matches then reads each plan once, not once per row).
    fc.asyncProperty(plan.map(deepFrozen), async (list) => {
      const expected = matchedIds(list);
      if (expected.length > 0 && expected.length < rows.length) nonEmpty++;
      expect(sqliteIds(list)).toEqual(expected);
      expect(await pgIds(list)).toEqual(expected);
      expect(mingoIds(list)).toEqual(expected);
    }),
    { numRuns: 150, seed: 3030 },
  );
  // The property compared selections, not only empty ones.
  expect(nonEmpty).toBeGreaterThan(30);
}, 300_000);

test.each([
  ['9007199254740993', [TWO_53 + 1n]],
  ['-9007199254740993', [-(TWO_53 + 1n)]],
  ['9223372036854775807', [TWO_63 - 1n]],
  ['-9223372036854775808', [-TWO_63]],
  // Beyond 64 bits: SQLite reads this text as the REAL -2^63, which equals the row -2^63; compared as text, nothing.
  ['-9223372036854775809', []],
  ['9223372036854775808', []],
])('the canonical integer text %s selects exactly its row in SQLite and PostgreSQL', async (text, ids) => {
  const list: ListPlan = { kind: 'some', anyOf: [{ orderId: [text] }], attributes: [] };
  const expected = ids.map(String);
  expect(matchedIds(list)).toEqual(expected);
  expect(sqliteIds(list)).toEqual(expected);
  expect(await pgIds(list)).toEqual(expected);
});

test('a decimal no double holds selects nothing in a REAL / DOUBLE PRECISION column, where a bound value would equal 0.1', async () => {
  const list: ListPlan = { kind: 'some', anyOf: [{ amount: ['0.10000000000000001'] }], attributes: [] };
  expect(rows.some((row) => row.amount === 0.1)).toBe(true);
  expect(matchedIds(list)).toEqual([]);
  expect(sqliteIds(list)).toEqual([]);
  expect(await pgIds(list)).toEqual([]);
  expect(mingoIds(list)).toEqual([]);
});
