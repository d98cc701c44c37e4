import type { ListPlan, ListValue } from '../policy/evaluate/list-plan';
import { canonicalInteger } from '../policy/request/canonical-number';
import { fieldPath, readField } from './field-path';
import { frozenPlan } from './frozen-plan';
import { mappedName } from './mapped-name';
import { readListPlan } from './read-list-plan';

/** A plan read for rows in memory: each entry's fields (paths) with the keys of their values. */
interface RowTest {
  /** Parameter -> field name, as `fields` mapped them when the test was built: a later call with the same mapping reuses it. */
  mapping: [string, string][];
  test: (row: unknown) => boolean;
}

/**
 * Tests built from frozen plans (the decisions' plans are frozen), by plan: a frozen plan cannot change, so it is
 * read and checked once, not once per row (a plan of 10,000 values against 3,000 rows took 50 s read per row).
 */
const built = new WeakMap<object, RowTest>();

/**
 * Whether a row already in memory is one the plan shows: `all` -> true, `none` -> false, `some` -> the row meets
 * some entry, each of the entry's parameters holding one of its values at the mapped field (a dotted path reads
 * nested own properties only). Equality is by value and type: a number equals the same number, a string the same
 * string, a boolean the same boolean; a bigint equals a number or a canonical integer text (`'9007199254740993'`)
 * of the same integer. Anything else (a string `'7'` for the number 7, an array, null, a missing field) is no match.
 * `list` undefined (no list operation) is a ListPlanError, as in toSql. See docs/list-filtering.md#into-queries.
 */
export function matches(list: ListPlan | undefined, row: unknown, fields: Record<string, string>): boolean {
  // Only frozen plans are kept, and a frozen plan stays frozen: one found here is as it was read.
  const cached = typeof list === 'object' && list !== null ? built.get(list) : undefined;
  // Compared by content, not identity: `fields` is often an object literal written in the call.
  if (cached !== undefined && cached.mapping.every(([param, field]) => mappedName(fields, param, 'fields') === field)) {
    return cached.test(row);
  }
  const rowTest = buildRowTest(readListPlan(list), fields);
  if (frozenPlan(list)) built.set(list, rowTest);
  return rowTest.test(row);
}

function buildRowTest(plan: ListPlan, fields: unknown): RowTest {
  if (plan.kind !== 'some') return { mapping: [], test: () => plan.kind === 'all' };
  const mapping = new Map<string, string>();
  const entries = plan.anyOf.map((entry) =>
    Object.entries(entry).map(([param, values]) => {
      const field = mappedName(fields, param, 'fields');
      mapping.set(param, field);
      return { path: fieldPath(field, param), keys: new Set(values.flatMap(planKeys)) };
    }),
  );
  return {
    mapping: [...mapping],
    test: (row) => entries.some((entry) => entry.every(({ path, keys }) => rowKeys(readField(row, path)).some((key) => keys.has(key)))),
  };
}

/**
 * Plan and row values meet as keys: `i:` an integer (a number or a bigint, in decimal), `n:` any other number,
 * `s:` a string, `b:` a boolean, and `t:` a string that is a canonical integer, which only a bigint row reaches.
 */
function planKeys(value: ListValue): string[] {
  if (typeof value === 'number') return [numberKey(value)];
  if (typeof value === 'boolean') return [`b:${value}`];
  return canonicalInteger(value) === value ? [`s:${value}`, `t:${value}`] : [`s:${value}`];
}

function rowKeys(value: unknown): string[] {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? [numberKey(value)] : [];
    case 'bigint':
      return [`i:${value}`, `t:${value}`];
    case 'boolean':
      return [`b:${value}`];
    case 'string':
      return [`s:${value}`];
    default:
      return [];
  }
}

function numberKey(value: number): string {
  return Number.isInteger(value) ? `i:${BigInt(value)}` : `n:${value}`;
}
