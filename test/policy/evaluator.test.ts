import { join } from 'node:path';
import { compileAcl, Evaluator, type DataDocument } from '../../src/policy';

const EXAMPLE = join(__dirname, '../../examples/users-api');
const data = compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: join(EXAMPLE, 'permissions.yaml') });
const adminReadsUser = { operation: 'GET /users/{userId}', role: 'admin', params: { 'path:userId': ['4'] } };

test('evaluates the documented decision shape', async () => {
  const evaluator = await Evaluator.create(data);
  expect(evaluator.evaluate(adminReadsUser)).toEqual({ allow: true, attributes: ['!password', '*'], role: 'admin', possession: 'any', scopes: [], reasons: [] });
  expect(evaluator.revision).toBe(data.revision);
});

test('setData swaps the data: later evaluations see only the new document', async () => {
  const evaluator = await Evaluator.create(data);
  const restricted = compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: { admin: { '/users': { 'read:any': ['*'] } } } });
  await evaluator.setData(restricted);
  const decision = evaluator.evaluate(adminReadsUser);
  expect(decision.allow).toBe(false);
  expect(decision.reasons).toEqual(['no role of the caller is granted read on /users/{userId}']);
  expect(evaluator.revision).toBe(restricted.revision);
  expect(evaluator.data).toBe(restricted);
});

test('setData called twice at once: the document of the later call stays, whichever instance is ready first', async () => {
  const opaWasm = jest.requireActual<typeof import('@open-policy-agent/opa-wasm')>('@open-policy-agent/opa-wasm');
  const load = opaWasm.loadPolicy;
  const evaluator = await Evaluator.create(data);
  const restricted = compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: { admin: { '/users': { 'read:any': ['*'] } } } });
  // The first call's instance is ready only after the second call has finished.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  const spy = jest.spyOn(opaWasm, 'loadPolicy').mockImplementation(async (...args: Parameters<typeof load>) => {
    const first = calls++ === 0;
    const loaded = await load(...args);
    if (first) await held;
    return loaded;
  });
  try {
    const older = evaluator.setData(data);
    await evaluator.setData(restricted);
    release();
    await older;
  } finally {
    spy.mockRestore();
  }
  expect(calls).toBe(2);
  expect(evaluator.data).toBe(restricted);
  expect(evaluator.evaluate(adminReadsUser).allow).toBe(false);
});

test('two evaluators on different data do not share state', async () => {
  const open = await Evaluator.create(data);
  const closed = await Evaluator.create(compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: {} }));
  expect(closed.evaluate(adminReadsUser).allow).toBe(false);
  expect(open.evaluate(adminReadsUser).allow).toBe(true);
});

test('a throw on the way to a decision is a deny with a reason', async () => {
  const evaluator = await Evaluator.create(data);
  // A BigInt cannot be serialized into the Wasm memory, so opa-wasm throws.
  const decision = evaluator.evaluate({ ...adminReadsUser, role: 10n as unknown });
  expect(decision).toMatchObject({ allow: false, attributes: [], role: null, possession: null });
  expect(decision.reasons[0]).toMatch(/^policy evaluation failed: /);
});

test('data without operations denies every request', async () => {
  const evaluator = await Evaluator.create({ ...data, operations: undefined } as unknown as DataDocument);
  expect(evaluator.evaluate(adminReadsUser)).toMatchObject({ allow: false, reasons: ['the data document is missing: load data.svcgate.acl'] });
});

test('evaluations after a failed one are unaffected', async () => {
  const evaluator = await Evaluator.create(data);
  evaluator.evaluate({ ...adminReadsUser, role: 10n as unknown });
  expect(evaluator.evaluate(adminReadsUser).allow).toBe(true);
});
