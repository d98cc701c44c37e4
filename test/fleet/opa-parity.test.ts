import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBundle } from '../../src/fleet';
import { Evaluator, type DataDocument, type PolicyInput } from '../../src/policy';
import { policyWasmPath } from '../../src/policy/evaluate/policy-wasm-path';
import { opaDecision, startOpa } from '../helpers/opa-server';

// SPEC 8.1: `opa run --server --bundle` answers the decision endpoint exactly as the in-process
// evaluator does. The shared decision table goes through both: each dataset as a bundle written
// by svcgate and served by a real OPA over its REST API, and through policy.wasm.
const ROOT = join(__dirname, '../..');
const table = JSON.parse(readFileSync(join(ROOT, 'policies/parity/decision_table.json'), 'utf8')) as {
  datasets: Record<string, DataDocument>;
  rows: { name: string; data: string; input: PolicyInput; expected: unknown }[];
};
const dir = mkdtempSync(join(tmpdir(), 'svcgate-opa-parity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each(Object.keys(table.datasets))('dataset %s: OPA serving the bundle and policy.wasm give the same decision for every row', async (name) => {
  const data = table.datasets[name]!;
  const file = join(dir, `${name}.tar.gz`);
  writeFileSync(file, await writeBundle({ data, wasm: readFileSync(policyWasmPath()), rego: { 'authz.rego': readFileSync(join(ROOT, 'policies/authz.rego'), 'utf8') } }));
  const evaluator = await Evaluator.create(data);
  const rows = table.rows.filter((row) => row.data === name);
  expect(rows.length).toBeGreaterThan(0);
  const opa = await startOpa(['--bundle', file], { ready: '/health?bundles' });
  try {
    for (const row of rows) {
      const remote = await opaDecision(opa.url, row.input);
      expect({ row: row.name, decision: remote.result }).toEqual({ row: row.name, decision: evaluator.evaluate(row.input) });
      expect({ row: row.name, decision: remote.result }).toEqual({ row: row.name, decision: row.expected });
    }
  } finally {
    await opa.stop();
  }
});
