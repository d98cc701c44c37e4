import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Evaluator, type PolicyInput } from '../../src/policy';
import type { DataDocument } from '../../src/policy';

// The same table is evaluated by `opa test` (policies/authz_test.rego, test_parity_table_matches);
// here it runs through dist/policy.wasm, so the two evaluators cannot drift apart unnoticed.
interface Row {
  name: string;
  data: string;
  input: PolicyInput;
  expected: unknown;
}
const table = JSON.parse(readFileSync(join(__dirname, '../../policies/parity/decision_table.json'), 'utf8')) as {
  datasets: Record<string, DataDocument>;
  rows: Row[];
};

const evaluators = new Map<string, Evaluator>();
beforeAll(async () => {
  for (const [name, data] of Object.entries(table.datasets)) evaluators.set(name, await Evaluator.create(data));
});

test('the table has at least 60 rows', () => {
  expect(table.rows.length).toBeGreaterThanOrEqual(60);
});

test.each(table.rows.map((row) => [row.name, row] as const))('%s', (_name, row) => {
  expect(evaluators.get(row.data)!.evaluate(row.input)).toEqual(row.expected);
});
