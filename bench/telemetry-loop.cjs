// What telemetry adds to one guarded request, without HTTP: bearerJwtAcl's middleware called in a
// loop with plain request and response objects (an allowed request: its token and its decision
// cached), in a process that bench/telemetry.mjs starts with a preload that hides
// @opentelemetry/api, with the API alone, or with the SDK registered. BENCH_LOOP holds the
// bearerJwt configuration and the request; prints "LOOP <ns per request>".
const { join } = require('node:path');
const { bearerJwt, bearerJwtAcl } = require('svcgate/auth');

const { jwt, path, authorization } = JSON.parse(process.env.BENCH_LOOP);
const EXAMPLE = join(__dirname, '../examples/users-api');
const guard = bearerJwtAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), handler: bearerJwt(jwt), acl: { bearerAuth: join(EXAMPLE, 'permissions.yaml') } });
const response = { headersSent: false, statusCode: 200, setHeader() {}, getHeader() {}, end() {}, locals: {} };
const request = () => ({ method: 'GET', url: path, originalUrl: path, headers: { authorization }, query: {} });
const COUNT = 300_000;

async function main() {
  let allowed = 0;
  const next = () => (allowed += 1);
  // The first request verifies the token (a promise); after it, each is answered at once.
  await new Promise((resolve) => guard(request(), response, resolve));
  for (let i = 0; i < COUNT; i++) guard(request(), response, next);
  allowed = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < COUNT; i++) guard(request(), response, next);
  const ns = Number(process.hrtime.bigint() - started) / COUNT;
  if (allowed !== COUNT) throw new Error(`${COUNT - allowed} of the requests were not allowed`);
  console.log(`LOOP ${ns}`);
}
main();
