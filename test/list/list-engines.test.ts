import Database from 'better-sqlite3';
import fc from 'fast-check';
import { find } from 'mingo';
import { matches, toMongo, toSql, type ListPlan } from '../../src/list';
import { startPglite, type PgliteProcess } from '../helpers/pglite-process';
import { deepFrozen, randomPlans, randomRows, sorted, TWO_53, TWO_63, typedInteger, type Row } from './random-rows';

// svcgate/list on the real engines: for random plans over a few thousand random rows, the rows
// SQLite (better-sqlite3) and PostgreSQL (PGlite) select with `WHERE <toSql text>` are exactly the
// rows `matches` accepts, and mingo (a MongoDB query engine) selects the same with toMongo's
// filter. The columns are named to need quoting (`select`, `a"b`) and read through a table alias
// (`o.order_id`); the ids go beyond 2^53 and to both ends of 64 bits, stored as INTEGER / BIGINT.

const ROW_COUNT = 3000;

const COLUMNS = { orderId: 'o.order_id', customerId: 'select', open: 'open', amount: 'a"b' };
const FIELDS = { orderId: 'order.id', customerId: 'select', open: 'open', amount: 'a"b' };

const rows = randomRows(ROW_COUNT, 30);
const asRecord = (row: Row) => ({ order: { id: row.id }, select: row.owner, open: row.open, 'a"b': row.amount });
/** As a MongoDB driver reads them back: an integer as a number where a double holds it, else its text (mingo has no Long). */
const documents = rows.map((row) => ({ _id: String(row.id), order: { id: typedInteger(row.id) }, select: row.owner, open: row.open, 'a"b': row.amount }));
const plan = randomPlans(rows);

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
