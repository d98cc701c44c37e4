import fc from 'fast-check';
import type { ListPlan, ListValue } from '../../src/list';

// Random rows and random plans over them, shared by the tests that run svcgate/list on real engines
// (list-engines: SQLite, PostgreSQL, mingo; mongo-engine: FerretDB). A row is an order: its id (an
// integer, beyond 2^53 and at both ends of 64 bits too), its owner, whether it is open, its amount.

export const TWO_53 = 2n ** 53n;
export const TWO_63 = 2n ** 63n;
const NOTABLE_IDS = [0n, 1n, 7n, -7n, 42n, TWO_53 - 1n, TWO_53, TWO_53 + 1n, -(TWO_53 + 1n), 2n ** 60n, 2n ** 60n + 1n, TWO_63 - 1n, -TWO_63];
export const OWNERS = ['u1', 'u2', 'u3', 'u10', '', '7', '007', ' 7', '9007199254740993', 'select', "o'k", 'a"b', '\u00e9t\u00e9', '\u{1F600}'];
const AMOUNTS = [0, 0.1, 0.5, 1, 1.5, 2, -3.25, 1e21, 2 ** 60];

export interface Row {
  id: bigint;
  owner: string;
  open: boolean;
  amount: number;
}

/** A value as the plan types it (the design's rule): a number when a double prints back as the same text, else the text. */
export function typedInteger(id: bigint): ListValue {
  const text = String(id);
  return String(Number(text)) === text ? Number(text) : text;
}

/** `count` rows with distinct ids: the notable ids first, then random ones (the same for the same seed). */
export function randomRows(count: number, seed: number, owners: readonly string[] = OWNERS): Row[] {
  const random = fc.sample(
    fc.record({
      id: fc.oneof(fc.bigInt({ min: -1000n, max: 1000n }), fc.bigInt({ min: -TWO_63, max: TWO_63 - 1n }), fc.bigInt({ min: TWO_53 - 50n, max: TWO_53 + 50n })),
      owner: fc.constantFrom(...owners),
      open: fc.boolean(),
      amount: fc.constantFrom(...AMOUNTS),
    }),
    { numRuns: count * 4, seed },
  );
  const seen = new Set<bigint>();
  const rows: Row[] = [];
  for (const [index, id] of NOTABLE_IDS.entries()) rows.push({ id, owner: owners[index % owners.length]!, open: index % 2 === 0, amount: AMOUNTS[index % AMOUNTS.length]! });
  for (const row of rows) seen.add(row.id);
  for (const row of random) {
    if (seen.has(row.id) || rows.length === count) continue;
    seen.add(row.id);
    rows.push(row);
  }
  return rows;
}

/**
 * Plans over the parameters orderId, customerId, open and amount, typed as the guard types them: mostly `some`
 * (of 1 to `maxEntries` entries), with values the rows hold and values they do not, now and then `all` or `none`.
 */
export function randomPlans(rows: readonly Row[], owners: readonly string[] = OWNERS, maxEntries = 4): fc.Arbitrary<ListPlan> {
  const integerValue = fc.oneof(
    fc.constantFrom(...rows.map((row) => row.id)).map(typedInteger),
    fc.bigInt({ min: -TWO_63, max: TWO_63 - 1n }).map(typedInteger),
    // Beyond 64 bits: no row holds them, and SQLite would read the text as a REAL (-2^63 - 1 -> the row -2^63).
    fc.constantFrom('-9223372036854775809', '9223372036854775808', '99999999999999999999', '18446744073709551616'),
  );
  const ownerValue = fc.oneof(fc.constantFrom(...owners), fc.constantFrom('u4', '8', '1e3', '-0', '+7', 'x'));
  // Non-shortest decimals stay text in a plan; 0.10000000000000001 would equal the double 0.1 in a REAL column.
  const amountValue = fc.oneof(fc.constantFrom(...AMOUNTS), fc.constantFrom('0.10000000000000001', '1.00000000000000000001', '1.50', 7));
  const values = <T>(arbitrary: fc.Arbitrary<T>) => fc.array(arbitrary, { minLength: 1, maxLength: 6 });
  const condition = fc
    .record({ orderId: values(integerValue), customerId: values(ownerValue), open: values(fc.boolean()), amount: values(amountValue) }, { requiredKeys: [] })
    .filter((entry) => Object.keys(entry).length > 0);
  return fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom<ListPlan>({ kind: 'all', anyOf: [], attributes: ['*'] }, { kind: 'none', anyOf: [], attributes: [] }) },
    { weight: 8, arbitrary: fc.array(condition, { minLength: 1, maxLength: maxEntries }).map((anyOf): ListPlan => ({ kind: 'some', anyOf, attributes: ['*'] })) },
  );
}

/** The plan frozen to its values, as the guard hands plans out (matches then reads each plan once, not once per row). */
export function deepFrozen(list: ListPlan): ListPlan {
  for (const entry of list.anyOf) Object.values(entry).forEach((values) => Object.freeze(values));
  list.anyOf.forEach((entry) => Object.freeze(entry));
  return Object.freeze({ ...list, anyOf: Object.freeze(list.anyOf) }) as ListPlan;
}

export const sorted = (ids: Iterable<string>): string[] => [...ids].sort();
