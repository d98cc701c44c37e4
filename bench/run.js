// `npm run bench`: measures the decision engine in-process and writes bench/results.md.
// The HTTP scenarios (Express, @oas-tools/core, SvcApi side by side) join in issue #5.
'use strict';
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { compileAcl, Evaluator } = require('svcgate/policy');

const EXAMPLE = join(__dirname, '../examples/users-api');
const DECISIONS = 200_000;

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** A rotating mix of allowed and denied requests, so no single path is measured alone. */
function inputs() {
  const list = [];
  for (let i = 0; i < 1000; i++) {
    const id = String(i % 7);
    list.push(
      { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': [id] }, claims: { 'path:userId': ['1', '3', '5'] } },
      { operation: 'GET /users/{userId}', role: 'admin', params: { 'path:userId': [id] }, claims: {} },
      { operation: 'DELETE /users/{userId}', role: 'user', params: { 'path:userId': [id] }, claims: { 'path:userId': [id] } },
      { operation: 'GET /users', params: {}, claims: {} },
    );
  }
  return list;
}

async function main() {
  const started = process.hrtime.bigint();
  const data = compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: join(EXAMPLE, 'permissions.yaml') });
  const compiledMs = Number(process.hrtime.bigint() - started) / 1e6;
  const evaluator = await Evaluator.create(data);
  const loadedMs = Number(process.hrtime.bigint() - started) / 1e6 - compiledMs;
  const pool = inputs();

  for (let i = 0; i < 20_000; i++) evaluator.evaluate(pool[i % pool.length]);
  const samples = new Float64Array(DECISIONS);
  let allowed = 0;
  const wall = process.hrtime.bigint();
  for (let i = 0; i < DECISIONS; i++) {
    const t0 = process.hrtime.bigint();
    if (evaluator.evaluate(pool[i % pool.length]).allow) allowed++;
    samples[i] = Number(process.hrtime.bigint() - t0) / 1000;
  }
  const seconds = Number(process.hrtime.bigint() - wall) / 1e9;
  const sorted = Array.from(samples).sort((a, b) => a - b);

  const rows = [
    ['compile example ACL + OpenAPI', `${compiledMs.toFixed(1)} ms`],
    ['load policy.wasm + setData', `${loadedMs.toFixed(1)} ms`],
    ['decisions measured', `${DECISIONS} (${((allowed / DECISIONS) * 100).toFixed(0)}% allowed)`],
    ['evaluator p50', `${percentile(sorted, 50).toFixed(1)} us`],
    ['evaluator p99', `${percentile(sorted, 99).toFixed(1)} us`],
    ['decisions per second (one core)', `${Math.round(DECISIONS / seconds)}`],
    ['resident memory after the run', `${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`],
  ];
  const table = ['| measure | value |', '|---|---|', ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n');
  const report = `# svcgate benchmark\n\nNode ${process.version}, ${new Date().toISOString().slice(0, 10)}, uncached evaluator (no decision cache yet).\n\n${table}\n`;
  writeFileSync(join(__dirname, 'results.md'), report);
  console.log(report);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
