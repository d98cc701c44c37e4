import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPolicySync } from '@open-policy-agent/opa-wasm';
import fc from 'fast-check';
import { compileAcl, Evaluator, type Decision, type PolicyInput } from '../../src/policy';
import { decisionFrom, ENTRYPOINT, listOf, PLAN_ENTRYPOINT } from '../../src/policy/evaluate/evaluator';
import { policyWasmPath } from '../../src/policy/evaluate/policy-wasm-path';

// The evaluator writes the input into policy.wasm's memory and calls opa_eval itself, instead of
// opa-wasm's evaluate: it must decide exactly as opa-wasm's evaluate does, on every input.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const data = compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: join(EXAMPLE, 'permissions.yaml') });
const evaluator = Evaluator.createSync(data, { decisionCacheSize: 0 });
const reference = loadPolicySync(readFileSync(policyWasmPath()), { initial: 64 });
reference.setData({ svcgate: { acl: data } });

function expected(input: unknown): unknown {
  const resultSet = reference.evaluate(input, ENTRYPOINT) as { result?: unknown }[];
  return decisionFrom(resultSet[0]?.result);
}

const operations = [...Object.keys(data.operations), 'GET /nowhere', ''];
const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('3', '03', 'user', 'admin', 'anonymous', '__proto__'));
const values = fc.array(fc.oneof(text, fc.constant(null)), { maxLength: 4 });
const input = fc.record(
  {
    operation: fc.oneof(fc.constantFrom(...operations), text),
    role: fc.oneof(text, fc.array(text, { maxLength: 3 }), fc.integer(), fc.constant(null)),
    params: fc.dictionary(fc.oneof(fc.constantFrom('path:userId', 'path:year', 'path:month'), text), values, { maxKeys: 3 }),
    claims: fc.dictionary(fc.oneof(fc.constant('path:userId'), text), fc.array(text, { maxLength: 3 }), { maxKeys: 2 }),
    scopes: fc.array(text, { maxLength: 3 }),
  },
  { requiredKeys: ['operation'] },
);

test('decides as opa-wasm evaluate does, over generated inputs (any text, any shape)', () => {
  fc.assert(
    fc.property(input, (generated) => {
      expect(evaluator.evaluate(generated as PolicyInput)).toEqual(expected(generated));
    }),
    { numRuns: 3000 },
  );
});

test('an input larger than the memory left (300,000 bytes of UTF-8) grows it and is decided the same', () => {
  const big: PolicyInput = { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['\u20ac'.repeat(100_000)] }, claims: { 'path:userId': ['3'] } };
  const decision = evaluator.evaluate(big);
  expect(decision).toEqual(expected(big));
  expect(decision.allow).toBe(false);
  // And the memory it grew into does not change the next decision.
  const owner: PolicyInput = { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['3'] }, claims: { 'path:userId': ['3'] } };
  expect(evaluator.evaluate(owner)).toEqual(expected(owner));
  expect(evaluator.evaluate(owner).allow).toBe(true);
});

// The direct call reads fields of opa-wasm's LoadedPolicy; should a new opa-wasm change them, the
// evaluator falls back to evaluate (decisions stay right, as above) and this says so.
test("with this opa-wasm, the evaluator calls opa_eval itself, not opa-wasm's evaluate", () => {
  const evaluate = jest.spyOn(Object.getPrototypeOf(reference) as { evaluate: () => unknown }, 'evaluate');
  try {
    expect(evaluator.evaluate({ operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['9'] }, claims: { 'path:userId': ['9'] } }).allow).toBe(true);
    expect(evaluate).not.toHaveBeenCalled();
  } finally {
    evaluate.mockRestore();
  }
});

type Loaded = ReturnType<typeof loadPolicySync>;

/** An evaluator of the users API whose policy is what `reshape` makes of the instance opa-wasm loaded. */
function evaluatorLoadedAs(reshape: (loaded: Loaded) => object): Evaluator {
  const opaWasm = jest.requireActual<typeof import('@open-policy-agent/opa-wasm')>('@open-policy-agent/opa-wasm');
  const load = opaWasm.loadPolicySync;
  const spy = jest.spyOn(opaWasm, 'loadPolicySync').mockImplementation((...args: Parameters<typeof load>) => reshape(load(...args)) as Loaded);
  try {
    return Evaluator.createSync(data, { decisionCacheSize: 0 });
  } finally {
    spy.mockRestore();
  }
}

// The same, whether opa-wasm keeps evaluate on its prototype or on each instance: an instance whose
// evaluate throws still decides.
test('an instance whose own evaluate throws is still decided (the direct call does not need it)', () => {
  const direct = evaluatorLoadedAs((loaded) => {
    loaded.evaluate = () => {
      throw 'the fallback was taken';
    };
    return loaded;
  });
  const owner: PolicyInput = { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['9'] }, claims: { 'path:userId': ['9'] } };
  expect(direct.evaluate(owner)).toEqual(expected(owner));
  expect(direct.evaluate(owner).allow).toBe(true);
});

// A list operation is decided at the `plan` entrypoint: through the direct call as well, and as
// opa-wasm's evaluate decides it.
describe('the plan entrypoint (list operations)', () => {
  const LISTS = join(__dirname, '../fixtures/orders-list');
  const listData = compileAcl({ openapi: join(LISTS, 'openapi.yaml'), acl: join(LISTS, 'permissions.yaml') });
  const listEvaluator = Evaluator.createSync(listData, { decisionCacheSize: 0 });
  const listReference = loadPolicySync(readFileSync(policyWasmPath()), { initial: 64 });
  listReference.setData({ svcgate: { acl: listData } });
  const lists = Object.entries(listData.operations).filter(([, operation]) => operation.list !== undefined);

  test('decides list operations as opa-wasm evaluate does, without calling it', () => {
    expect(lists.length).toBeGreaterThan(0);
    const evaluate = jest.spyOn(Object.getPrototypeOf(listReference) as { evaluate: () => unknown }, 'evaluate');
    const inputs: PolicyInput[] = [];
    for (const [operation] of lists) {
      for (const role of ['customer', 'support', 'nobody', ['customer', 'support']]) {
        inputs.push({ operation, role, claims: { 'path:orderId': ['1', '2'], 'path:region': ['eu'], 'path:invoiceId': ['7'] } }, { operation, role, claims: {} });
      }
    }
    let decisions: Decision[];
    try {
      decisions = inputs.map((each) => listEvaluator.evaluate(each));
      expect(evaluate).not.toHaveBeenCalled();
    } finally {
      evaluate.mockRestore();
    }
    inputs.forEach((each, index) => {
      const resultSet = listReference.evaluate(each, PLAN_ENTRYPOINT) as { result?: unknown }[];
      expect(decisions[index]).toEqual(decisionFrom(resultSet[0]?.result, listOf(listData.operations, each.operation), each.claims));
    });
    expect(decisions.some((decision) => decision.list?.kind === 'some')).toBe(true);
    expect(decisions.some((decision) => decision.list?.kind === 'all')).toBe(true);
  });
});

// Should a new opa-wasm keep its fields elsewhere (private fields, another name), the evaluator
// decides through its evaluate, with the same decisions.
test('a loaded policy of another shape (only evaluate, setData, entrypoints) is decided through evaluate', () => {
  const calls: string[] = [];
  const other = evaluatorLoadedAs((loaded) => ({
    entrypoints: (loaded as unknown as { entrypoints: Record<string, number> }).entrypoints,
    setData: (value: object | ArrayBuffer) => loaded.setData(value),
    evaluate: (value: unknown, entrypoint?: string | number) => {
      calls.push(String(entrypoint));
      return loaded.evaluate(value, entrypoint);
    },
  }));
  const owner: PolicyInput = { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['3'] }, claims: { 'path:userId': ['3'] } };
  const stranger: PolicyInput = { ...owner, claims: { 'path:userId': ['4'] } };
  expect(other.evaluate(owner)).toEqual(expected(owner));
  expect(other.evaluate(stranger)).toEqual(expected(stranger));
  expect(other.evaluate(owner).allow).toBe(true);
  expect(calls).toEqual([ENTRYPOINT, ENTRYPOINT, ENTRYPOINT]);
});
