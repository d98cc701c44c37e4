// What the shadow adds to one guarded request's CPU, without HTTP: bearerJwtAcl's middleware called
// in a loop over the 1,000 rotating tokens of the Express scenario (half allowed, half denied, each
// token and decision cached after the first round), with plain request and response objects whose
// response emits 'close' when answered, so the candidate decides within the loop. The decisionLog
// keeps events in a bounded buffer, as bench/server.mjs's (shadow-fixtures.mjs). BENCH_LOOP names the setting: `none`
// (no shadow), `rate-0`, `rate-1` (the candidate without the user role's read:own: every allowed
// request diverges), `same` (at rate 1, the candidate is the active declaration: never diverges).
// Prints "LOOP <CPU ns per request> <counts>". shadow.mjs runs it in fresh processes, the settings alternating.
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { boundedLog, withoutUserReadOwn } from './shadow-fixtures.mjs';
import { JWT, requestPool } from './tokens.mjs';

const require = createRequire(import.meta.url);
const { bearerJwt, bearerJwtAcl } = require('svcgate/auth');
const EXAMPLE = join(dirname(fileURLToPath(import.meta.url)), '../examples/users-api');
const ACL = join(EXAMPLE, 'permissions.yaml');
const COUNT = Number(process.env.BENCH_LOOP_COUNT ?? 100_000);

const setting = process.env.BENCH_LOOP ?? 'none';
const candidate = setting === 'same' ? ACL : withoutUserReadOwn(ACL);
const shadow = setting === 'none' ? {} : { shadow: { source: { bearerAuth: candidate }, sampleRate: setting === 'rate-0' ? 0 : 1 } };
const log = boundedLog();
const guard = bearerJwtAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), handler: bearerJwt(JWT), acl: { bearerAuth: ACL }, decisionLog: log.push, ...shadow });

/** The least of a ServerResponse the guard uses; 'close' once it is answered, or by the route after next(). */
class Response extends EventEmitter {
  headersSent = false;
  statusCode = 200;
  closed = false;
  locals = {};
  setHeader() {}
  getHeader() {}
  end() {
    this.closed = true;
    this.emit('close');
  }
}

const pool = await requestPool((id) => `/api/v1/users/${id}`);
let answered = 0;
const next = () => (answered += 1);
function guarded({ path, headers }) {
  const res = new Response();
  const req = { method: 'GET', url: path, originalUrl: path, headers, query: {}, res };
  guard(req, res, next);
  // An allowed request goes on to the route, which answers it.
  if (!res.closed) res.end();
}
// The first round verifies each token (a promise each); after it, every request is answered at once.
for (const { path, headers } of pool) {
  await new Promise((resolve) => {
    const res = new Response();
    res.once('close', resolve);
    guard({ method: 'GET', url: path, originalUrl: path, headers, query: {}, res }, res, () => res.end());
  });
}
/** Requests in turns of 100, as a server under load reads about a hundred between turns of the event loop. */
async function loop() {
  for (let i = 0; i < COUNT; i++) {
    guarded(pool[i % pool.length]);
    if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setImmediate(resolve));
}
await loop();
answered = 0;
// CPU time, all threads (the collector's too), rather than the clock: on a machine shared with
// other work the clock counts the time this process waited for a CPU.
const cpu = process.cpuUsage();
await loop();
const used = process.cpuUsage(cpu);
const ns = ((used.user + used.system) * 1000) / COUNT;
const status = guard.shadowStatus();
console.log(`LOOP ${ns} ${JSON.stringify({ answered, logged: log.count(), compared: status?.compared ?? 0, divergences: status?.divergences ?? 0 })}`);
