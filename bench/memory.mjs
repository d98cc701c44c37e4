// A million decisions on distinct inputs (so the decision cache keeps turning over), after
// 100,000 more to warm up (the decision cache fills and V8 sizes its heap; the first checkpoint
// without them was once a fifth below all the others); prints, as JSON, the resident set, the live
// heap and OPA's Wasm memory after a GC at every 100,000. Run with --expose-gc.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { compileAcl, Evaluator } = require('svcgate/policy');
const example = join(dirname(fileURLToPath(import.meta.url)), '../examples/users-api');
const evaluator = await Evaluator.create(compileAcl({ openapi: join(example, 'openapi.yaml'), acl: join(example, 'permissions.yaml') }));
const WARM_UP = 100_000;
const samples = [];
for (let i = 1; i <= WARM_UP + 1_000_000; i++) {
  evaluator.evaluate({ operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': [String(i)] }, claims: { 'path:userId': ['1'] } });
  if (i > WARM_UP && (i - WARM_UP) % 100_000 === 0) {
    globalThis.gc();
    const { rss, heapUsed } = process.memoryUsage();
    // opa-wasm's own field (not svcgate's API): the Wasm memory OPA's heap lives in.
    samples.push({ decisions: i - WARM_UP, rss, heapUsed, wasmBytes: evaluator.policy.mem.buffer.byteLength });
  }
}
console.log(JSON.stringify(samples));
