// A million decisions on distinct inputs (so the decision cache keeps turning over); prints, as
// JSON, the resident set and the live heap after a GC at every 100,000. Run with --expose-gc.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { compileAcl, Evaluator } = require('svcgate/policy');
const example = join(dirname(fileURLToPath(import.meta.url)), '../examples/users-api');
const evaluator = await Evaluator.create(compileAcl({ openapi: join(example, 'openapi.yaml'), acl: join(example, 'permissions.yaml') }));
const samples = [];
for (let i = 1; i <= 1_000_000; i++) {
  evaluator.evaluate({ operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': [String(i)] }, claims: { 'path:userId': ['1'] } });
  if (i % 100_000 === 0) {
    globalThis.gc();
    const { rss, heapUsed } = process.memoryUsage();
    samples.push({ decisions: i, rss, heapUsed });
  }
}
console.log(JSON.stringify(samples));
