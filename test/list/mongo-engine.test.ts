import fc from 'fast-check';
import { find } from 'mingo';
import { MongoClient, type Collection } from 'mongodb';
import { matches, toMongo, type ListPlan, type ListValue } from '../../src/list';
import { startFerretDb, type FerretDbServer } from '../helpers/ferretdb-server';
import { deepFrozen, OWNERS, randomPlans, randomRows, sorted, TWO_53, typedInteger } from './random-rows';

// toMongo on a real MongoDB wire-protocol server: FerretDB (the version scripts/install-ferretdb.sh pins, SQLite
// backend) through the mongodb driver. For random plans over two thousand random documents, `find(toMongo(...))`
// selects exactly the documents `matches` accepts, and mingo the same. Each document holds its id twice:
// `order.id` as a Long (int64; the driver writes a bigint as one) and `order.ref` as the guide advises for ids
// beyond 2^53 (a number where a double holds it, else its decimal text). Owners and ids sit in nested fields.

const ROW_COUNT = 2000;
// Strings MongoDB compares code unit for code unit: case, NFD beside NFC, a NUL inside (BSON strings carry one),
// a no-break space, CJK, and U+FFFD (what BSON writes for a lone surrogate, which toMongo leaves out).
const MONGO_OWNERS = [...OWNERS, 'U1', 'e\u0301t\u00e9', 'u1\u0000', 'u1\u0000x', '\u00a0u1', '\u4e2d\u6587', '\uFFFD'];

interface OrderDocument {
  _id: string;
  order: { id: bigint; ref: ListValue };
  customer: { id: string };
  open: boolean;
  amount: number;
}

const rows = randomRows(ROW_COUNT, 31, MONGO_OWNERS);
const documents: OrderDocument[] = rows.map((row) => ({
  _id: String(row.id),
  order: { id: row.id, ref: typedInteger(row.id) },
  customer: { id: row.owner },
  open: row.open,
  amount: row.amount,
}));
// Up to 8 entries, so that more of the few plans this test can afford select some documents and not all.
const plan = randomPlans(rows, [...MONGO_OWNERS, '\uD800'], 8);

const BY_TEXT = { orderId: 'order.ref', customerId: 'customer.id', open: 'open', amount: 'amount' };
const BY_LONG = { ...BY_TEXT, orderId: 'order.id' };
const ALL: ListPlan = { kind: 'all', anyOf: [], attributes: ['*'] };
const NONE: ListPlan = { kind: 'none', anyOf: [], attributes: [] };

let server: FerretDbServer;
let client: MongoClient;
let orders: Collection<OrderDocument>;

beforeAll(async () => {
  server = await startFerretDb();
  // useBigInt64: a Long reads back as a bigint, so the test sees the stored ids exactly.
  client = new MongoClient(server.url, { useBigInt64: true, serverSelectionTimeoutMS: 10_000 });
  orders = client.db('svcgate').collection<OrderDocument>('orders');
  await orders.insertMany(documents);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
});

const ferretIds = async (list: ListPlan, fields: Record<string, string>): Promise<string[]> =>
  sorted((await orders.find<{ _id: string }>(toMongo(list, fields), { projection: { _id: 1 } }).toArray()).map((document) => document._id));
// The truth: the ids as the app holds them (bigints), which `matches` compares by value with numbers and canonical text.
const matchedIds = (list: ListPlan): string[] => sorted(documents.filter((document) => matches(list, document, BY_LONG)).map((document) => document._id));
const mingoDocuments = documents.map(({ order, ...rest }) => ({ ...rest, order: { ref: order.ref } }));
const mingoIds = (list: ListPlan): string[] => sorted(find(mingoDocuments, toMongo(list, BY_TEXT)).all().map((document) => String(document._id)));

/**
 * The plan as a Long field meets it: an integer's text (beyond 2^53) is a string, which equals no number in MongoDB
 * (another BSON type), so the text values of orderId are made to meet nothing (`matches` compares a bigint with
 * canonical integer text, the prefixed text is not one); the entry keeps its other values.
 */
function textUnmatched(list: ListPlan): ListPlan {
  if (list.kind !== 'some') return list;
  const anyOf = list.anyOf.map((entry) =>
    entry.orderId === undefined ? entry : { ...entry, orderId: entry.orderId.map((value) => (typeof value === 'string' ? `text ${value}` : value)) },
  );
  return { ...list, anyOf };
}

test('FerretDB holds every document, the Long ids exactly; all selects them all and none nothing', async () => {
  const stored = await orders.find({}).toArray();
  expect(stored.length).toBe(ROW_COUNT);
  expect(stored.map((document) => document.order.id).sort()).toEqual(documents.map((document) => document.order.id).sort());
  expect(stored.some((document) => document.order.id === 2n ** 63n - 1n)).toBe(true);
  expect(stored.find((document) => document._id === '9007199254740993')?.order).toEqual({ id: TWO_53 + 1n, ref: '9007199254740993' });
  const everything = sorted(documents.map((document) => document._id));
  expect(await ferretIds(ALL, BY_TEXT)).toEqual(everything);
  expect(matchedIds(ALL)).toEqual(everything);
  expect(await ferretIds(NONE, BY_TEXT)).toEqual([]);
  expect(await ferretIds(NONE, BY_LONG)).toEqual([]);
  expect(mingoIds(NONE)).toEqual([]);
});

test('for random plans, FerretDB selects exactly the documents matches accepts, and mingo the same', async () => {
  let compared = 0;
  let fewerOnLong = 0;
  await fc.assert(
    fc.asyncProperty(plan.map(deepFrozen), async (list) => {
      // Both queries are sent first; FerretDB answers them while this process computes the expected ids.
      const [byText, onLong] = [ferretIds(list, BY_TEXT), ferretIds(list, BY_LONG)];
      const expected = matchedIds(list);
      const expectedOnLong = matchedIds(deepFrozen(textUnmatched(list)));
      if (expected.length > 0 && expected.length < ROW_COUNT) compared++;
      if (expectedOnLong.length < expected.length) fewerOnLong++;
      expect(mingoIds(list)).toEqual(expected);
      expect(await byText).toEqual(expected);
      // On the Long field the texts meet nothing: fewer documents, never more.
      expect(await onLong).toEqual(expectedOnLong);
    }),
    { numRuns: 50, seed: 3031 },
  );
  // The property compared selections, not only empty ones, and some where the Long field misses texts.
  expect(compared).toBeGreaterThan(15);
  expect(fewerOnLong).toBeGreaterThan(2);
}, 120_000);

test('an integer beyond 2^53 in the plan is its text: it selects the document holding that text, not the Long', async () => {
  const list: ListPlan = { kind: 'some', anyOf: [{ orderId: ['9007199254740993'] }], attributes: [] };
  expect(typedInteger(TWO_53 + 1n)).toBe('9007199254740993');
  expect(matchedIds(list)).toEqual(['9007199254740993']);
  expect(await ferretIds(list, BY_TEXT)).toEqual(['9007199254740993']);
  expect(mingoIds(list)).toEqual(['9007199254740993']);
  expect(await ferretIds(list, BY_LONG)).toEqual([]);
});

test('a number meets a Long by exact value: 2^53 is not the Long 2^53 + 1, 2^60 not 2^60 + 1', async () => {
  expect(documents.filter((document) => [TWO_53 + 1n, 2n ** 60n + 1n].includes(document.order.id))).toHaveLength(2);
  for (const id of [TWO_53, 2n ** 60n]) {
    // 2^60 is a number no plan holds (it prints as 1152921504606847000, so the plan keeps its text), but an app may pass one.
    const list: ListPlan = { kind: 'some', anyOf: [{ orderId: [Number(id)] }], attributes: [] };
    expect(await ferretIds(list, BY_LONG)).toEqual([String(id)]);
    expect(matchedIds(list)).toEqual([String(id)]);
  }
});

test.each([
  ['u1', 'not U1, u1 with a NUL, nor u1 after a no-break space'],
  ['\u00e9t\u00e9', 'NFC, not its NFD form'],
  ['u1\u0000', 'with its NUL, not u1 nor u1 NUL x'],
])('the owner %j selects exactly the documents holding it (%s)', async (owner) => {
  const list: ListPlan = { kind: 'some', anyOf: [{ customerId: [owner] }], attributes: [] };
  const expected = sorted(documents.filter((document) => document.customer.id === owner).map((document) => document._id));
  expect(expected.length).toBeGreaterThan(0);
  expect(await ferretIds(list, BY_TEXT)).toEqual(expected);
  expect(matchedIds(list)).toEqual(expected);
});

test('a lone surrogate in the plan selects no document holding U+FFFD, which BSON would have sent in its place', async () => {
  const list: ListPlan = { kind: 'some', anyOf: [{ customerId: ['\uD800'] }], attributes: [] };
  expect(documents.some((document) => document.customer.id === '\uFFFD')).toBe(true);
  expect(await ferretIds(list, BY_TEXT)).toEqual([]);
  expect(matchedIds(list)).toEqual([]);
});
