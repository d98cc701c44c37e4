import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPolicySync } from '@open-policy-agent/opa-wasm';
import fc from 'fast-check';
import { compileAcl, Evaluator, type PolicyInput } from '../../src/policy';
import { decisionFrom, ENTRYPOINT } from '../../src/policy/evaluate/evaluator';
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
