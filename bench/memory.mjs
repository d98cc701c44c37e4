// A million decisions on distinct inputs (so the decision cache keeps turning over); prints the
// resident memory after 100,000 and after 1,000,000 as JSON. Run with --expose-gc.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { compileAcl, Evaluator } = require('svcgate/policy');
const example = join(dirname(fileURLToPath(import.meta.url)), '../examples/users-api');
const evaluator = await Evaluator.create(compileAcl({ openapi: join(example, 'openapi.yaml'), acl: join(example, 'permissions.yaml') }));
const rss = {};
for (let i = 1; i <= 1_000_000; i++) {
  evaluator.evaluate({ operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': [String(i)] }, claims: { 'path:userId': ['1'] } });
  if (i === 100_000 || i === 1_000_000) {
    globalThis.gc();
    rss[i] = process.memoryUsage().rss;
  }
}
console.log(JSON.stringify({ rss100k: rss[100_000], rss1m: rss[1_000_000] }));
