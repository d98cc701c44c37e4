import Database from 'better-sqlite3';
import { toSql, type ListPlan } from '../../src/list';
import { some } from './list-plans';
import { startPglite, type PgliteProcess } from '../helpers/pglite-process';

// toSql's statements on the real engines at their edges: hostile sizes (10,000 values, the most
// parameters each engine binds, thousands of entries), a table whose columns are named true and
// false, values a driver would change on the way (a lone surrogate, a NUL), and startAt after the
// query's own placeholders.

const ROWS = 12_000;
const range = (count: number, step = 1) => Array.from({ length: count }, (_, index) => index * step);
const COLUMNS = { orderId: 'id', customerId: 'owner' };

let sqlite: Database.Database;
let pg: PgliteProcess;

beforeAll(async () => {
  sqlite = new Database(':memory:');
  sqlite.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, "true" INTEGER NOT NULL, "false" INTEGER NOT NULL)');
  const insert = sqlite.prepare('INSERT INTO orders VALUES (?, ?, 0, 1)');
  sqlite.transaction(() => range(ROWS).forEach((id) => insert.run(id, id === 1 ? '\uFFFD' : `u${id % 100}`)))();
  pg = await startPglite();
  await pg.exec(`CREATE TABLE orders (id BIGINT PRIMARY KEY, owner TEXT NOT NULL);
    INSERT INTO orders SELECT i, CASE WHEN i = 1 THEN chr(65533) ELSE 'u' || (i % 100) END FROM generate_series(0, ${ROWS - 1}) AS i;
    CREATE TABLE ratings (rating DOUBLE PRECISION, exact NUMERIC, big BIGINT);
    INSERT INTO ratings VALUES (9007199254740992, 9007199254740993, 9007199254740993), (-9223372036854775808, 5, 5);`);
}, 120_000);

afterAll(async () => {
  sqlite?.close();
  await pg?.stop();
});

const sqliteCount = (list: ListPlan): number => {
  const { text, values } = toSql(list, { dialect: 'sqlite', columns: COLUMNS });
  return (sqlite.prepare(`SELECT count(*) AS n FROM orders WHERE ${text}`).get(...values) as { n: number }).n;
};
const pgCount = async (list: ListPlan, prefix = '', before: unknown[] = []): Promise<number> => {
  const { text, values } = toSql(list, { dialect: 'postgres', columns: COLUMNS, startAt: before.length + 1 });
  const [row] = await pg.query<{ n: string }>(`SELECT count(*)::text AS n FROM orders WHERE ${prefix}(${text})`, [...before, ...values]);
  return Number(row!.n);
};

test('a plan of 10,000 values selects its rows in both engines', async () => {
  const list = some({ orderId: range(10_000, 3) });
  expect(sqliteCount(list)).toBe(4000);
  expect(await pgCount(list)).toBe(4000);
});

test('the most values each engine binds run: 32,766 in SQLite, 65,535 in PostgreSQL', async () => {
  expect(sqliteCount(some({ orderId: range(32_766) }))).toBe(ROWS);
  expect(await pgCount(some({ orderId: range(65_535) }))).toBe(ROWS);
});

test('5,000 entries run in SQLite, whose expression trees stop at a depth of 1000', async () => {
  const list = some(...range(5000).map((id) => ({ orderId: [id * 2], customerId: [`u${(id * 2) % 100}`] })));
  expect(sqliteCount(list)).toBe(5000);
  expect(await pgCount(list)).toBe(5000);
});

test('all and none mean every row and no row in SQLite even where columns are named true and false', () => {
  expect(sqliteCount({ kind: 'all', anyOf: [], attributes: [] })).toBe(ROWS);
  expect(sqliteCount({ kind: 'none', anyOf: [], attributes: [] })).toBe(0);
});

test('a lone surrogate selects nothing, not the row that holds U+FFFD, which is what the driver would send', async () => {
  expect(sqliteCount(some({ customerId: ['\uFFFD'] }))).toBe(1);
  expect(await pgCount(some({ customerId: ['\uFFFD'] }))).toBe(1);
  expect(sqliteCount(some({ customerId: ['\uD800'] }))).toBe(0);
  expect(await pgCount(some({ customerId: ['\uD800'] }))).toBe(0);
  expect(await pgCount(some({ customerId: ['\uDFFF', 'u5'] }))).toBe(ROWS / 100);
});

test('a NUL, which PostgreSQL text cannot hold, selects nothing instead of failing the statement', async () => {
  expect(await pgCount(some({ customerId: ['u5\u0000'] }))).toBe(0);
  expect(await pgCount(some({ customerId: ['u5\u0000'] }, { orderId: [3] }))).toBe(1);
});

test('startAt follows the query\'s own placeholders', async () => {
  expect(await pgCount(some({ orderId: [1, 2, 3, 500] }), 'id < $1 AND ', [100])).toBe(3);
});

test('an integer beyond 2^53 given as text selects no neighbouring double: PostgreSQL reads it into a double precision column rounded', async () => {
  // A number parameter's claim '9007199254740993' owns that number alone: GET /ratings/9007199254740992 is denied, and no
  // double holds 9007199254740993, so no row of a double precision column may be selected.
  const count = async (column: string, values: string[]): Promise<number> => {
    const { text, values: bound } = toSql(some({ rating: values }), { dialect: 'postgres', columns: { rating: column } });
    const [row] = await pg.query<{ n: string }>(`SELECT count(*)::text AS n FROM ratings WHERE ${text}`, bound);
    return Number(row!.n);
  };
  expect(await count('rating', ['9007199254740993'])).toBe(0);
  expect(await count('rating', ['9007199254740993', '-9223372036854775807'])).toBe(0);
  // Columns that hold the integer exactly still select it, by value or in a list.
  expect(await count('exact', ['9007199254740993'])).toBe(1);
  expect(await count('big', ['9007199254740993', '9007199254740995'])).toBe(1);
});

test('text PostgreSQL reads as a number in another base (0x10, 0o20, 0b10000, since PostgreSQL 16) selects no row of a number column', async () => {
  // The claim '0x10' of a string or untyped parameter owns the text '0x10' only: GET /orders/16 is denied with it.
  for (const text of ['0x10', '0X10', ' 0x10', '-0x10', '0o20', '0b10000', '0x1_0']) {
    expect(sqliteCount(some({ orderId: [text] }))).toBe(0);
    expect(await pgCount(some({ orderId: [text] }))).toBe(0);
  }
  expect(await pgCount(some({ orderId: ['16'] }))).toBe(1);
});

test("the text '-0' (a string or untyped parameter's claim) selects no row 0: both engines read it as the integer 0", async () => {
  expect(sqliteCount(some({ orderId: ['-0'] }))).toBe(0);
  expect(await pgCount(some({ orderId: ['-0'] }))).toBe(0);
  expect(await pgCount(some({ orderId: ['-0', '0'] }))).toBe(1);
});
