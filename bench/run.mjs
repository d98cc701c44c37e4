// `npm run bench`: every scenario in one run, side by side, and the ratios of each guarded
// scenario to its unguarded twin; then the evaluator alone, its memory, and the compile cost of a
// large ACL. Writes bench/results.md. BENCH_SECONDS sets the seconds per scenario (default 10).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, SCENARIOS, startServer } from './scenarios.mjs';
import { requestPool } from './tokens.mjs';

const require = createRequire(import.meta.url);
const { compileAcl, Evaluator } = require('svcgate/policy');
const HERE = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = 2;

async function httpScenarios() {
  const servers = {};
  const pools = {};
  for (const scenario of SCENARIOS) {
    servers[scenario.name] = await startServer(scenario.name);
    pools[scenario.name] = await requestPool(scenario.path);
  }
  const totals = Object.fromEntries(SCENARIOS.map((s) => [s.name, { requests: 0, seconds: 0, p50: [], p99: [], errors: 0, statuses: {} }]));
  try {
    for (const scenario of SCENARIOS) await load(servers[scenario.name].url, pools[scenario.name], 1);
    // Rounds alternate the order, so slow drift of the machine hits every scenario alike.
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? SCENARIOS : [...SCENARIOS].reverse();
      for (const scenario of order) {
        const result = await load(servers[scenario.name].url, pools[scenario.name], SECONDS / ROUNDS);
        const total = totals[scenario.name];
        total.requests += result.requests.total;
        total.seconds += result.duration;
        total.p50.push(result.latency.p50);
        total.p99.push(result.latency.p99);
        total.errors += result.errors + result.timeouts;
        total.statuses['2xx'] = (total.statuses['2xx'] ?? 0) + result['2xx'];
        total.statuses['4xx'] = (total.statuses['4xx'] ?? 0) + result['4xx'];
        total.statuses['5xx'] = (total.statuses['5xx'] ?? 0) + result['5xx'];
        process.stderr.write(`${scenario.name}: ${Math.round(result.requests.average)} req/s\n`);
      }
    }
  } finally {
    for (const { child } of Object.values(servers)) child.kill();
  }
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
  const rps = (name) => totals[name].requests / totals[name].seconds;
  return SCENARIOS.map((scenario) => ({
    ...scenario,
    rps: rps(scenario.name),
    p50: mean(totals[scenario.name].p50),
    p99: mean(totals[scenario.name].p99),
    statuses: totals[scenario.name].statuses,
    errors: totals[scenario.name].errors,
    ratio: scenario.twin ? rps(scenario.name) / rps(scenario.twin) : undefined,
  }));
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** p50/p99 in microseconds over a rotating mix of allowed and denied inputs. */
function timeDecisions(evaluator, inputs, count) {
  const samples = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const input = inputs[i % inputs.length];
    const t0 = process.hrtime.bigint();
    evaluator.evaluate(input);
    samples[i] = Number(process.hrtime.bigint() - t0) / 1000;
  }
  const sorted = Array.from(samples).sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

async function evaluatorAlone() {
  const example = join(HERE, '../examples/users-api');
  const data = compileAcl({ openapi: join(example, 'openapi.yaml'), acl: join(example, 'permissions.yaml') });
  // The same mix as the HTTP scenarios: 1,000 callers, each owning one user, half of the requests
  // for their own user (allowed) and half for another (denied).
  const inputs = [];
  for (let i = 0; i < 1000; i++) {
    const own = (i % 5) + 1;
    const target = i % 2 === 0 ? own : (own % 5) + 1;
    inputs.push({ operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': [String(target)] }, claims: { 'path:userId': [String(own)] } });
  }
  const cold = await Evaluator.create(data, { decisionCacheSize: 0 });
  timeDecisions(cold, inputs, 20_000);
  const uncached = timeDecisions(cold, inputs, 200_000);
  const warm = await Evaluator.create(data);
  timeDecisions(warm, inputs, 20_000);
  const cached = timeDecisions(warm, inputs, 200_000);

  return { uncached, cached, ...(await memoryGrowth()) };
}

/** Resident memory after 100,000 and 1,000,000 decisions, in a fresh process of its own. */
function memoryGrowth() {
  const child = spawn(process.execPath, ['--expose-gc', join(HERE, 'memory.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`memory.mjs exited with ${code}`)))));
}

/** 1,000 roles x 1,000 paths: compile and load into the evaluator. */
async function largeAcl() {
  const paths = {};
  for (let p = 0; p < 1000; p++) paths[`/r${p}/{id}`] = { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }] } };
  const openapi = { openapi: '3.0.3', info: { title: 'large', version: '1' }, security: [{ b: [] }], components: { securitySchemes: { b: { type: 'http', scheme: 'bearer' } } }, paths };
  const acl = {};
  for (let r = 0; r < 1000; r++) {
    const grants = {};
    for (let p = 0; p < 1000; p++) grants[`/r${p}/{id}`] = { [(r + p) % 2 === 0 ? 'read:any' : 'read:own']: ['*'] };
    acl[`role${r}`] = grants;
  }
  const t0 = performance.now();
  const data = compileAcl({ openapi, acl });
  const compiled = performance.now();
  const evaluator = await Evaluator.create(data);
  const loaded = performance.now();
  const decision = evaluator.evaluate({ operation: 'GET /r7/{id}', role: 'role1', params: { 'path:id': ['1'] } });
  return { compileMs: compiled - t0, loadMs: loaded - compiled, bytes: JSON.stringify(data).length, allow: decision.allow };
}

const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const http = await httpScenarios();
const alone = await evaluatorAlone();
const large = await largeAcl();

const lines = [
  '# svcgate benchmark',
  '',
  `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${SECONDS} s per scenario in ${ROUNDS} alternating rounds, 100 connections, pipelining 1; each server in its own process, autocannon in this one. Requests rotate over 1,000 distinct valid tokens; half ask for the caller's own user (allowed), half for another (denied).`,
  '',
  '| scenario | requests/s | p50 ms | p99 ms | 2xx / 4xx / 5xx | ratio to twin | target |',
  '|---|---:|---:|---:|---|---:|---:|',
  ...http.map((s) => `| ${s.label} | ${fmt(s.rps)} | ${fmt(s.p50, 1)} | ${fmt(s.p99, 1)} | ${s.statuses['2xx']} / ${s.statuses['4xx']} / ${s.statuses['5xx']} | ${s.ratio === undefined ? '' : `${fmt(s.ratio, 2)} of ${s.twin}`} | ${s.target === undefined ? '' : `${s.target >= 0 ? '>= ' : ''}${s.target}${s.ratio >= s.target ? ' met' : ' MISSED'}`} |`),
  '',
  '| evaluator alone | p50 us | p99 us | target p50 |',
  '|---|---:|---:|---:|',
  `| uncached (decision cache off) | ${fmt(alone.uncached.p50, 2)} | ${fmt(alone.uncached.p99, 2)} | <= 10 ${alone.uncached.p50 <= 10 ? 'met' : 'MISSED'} |`,
  `| cached | ${fmt(alone.cached.p50, 2)} | ${fmt(alone.cached.p99, 2)} | <= 1 ${alone.cached.p50 <= 1 ? 'met' : 'MISSED'} |`,
  '',
  `Resident memory (a fresh process, after a GC): ${fmt(alone.rss100k / 2 ** 20, 1)} MiB after 100,000 decisions, ${fmt(alone.rss1m / 2 ** 20, 1)} MiB after 1,000,000: ${fmt((alone.rss1m / alone.rss100k - 1) * 100, 1)}% (target: no more than 10% growth, ${alone.rss1m <= alone.rss100k * 1.1 ? 'met' : 'MISSED'}).`,
  '',
  `Large ACL (1,000 roles x 1,000 paths, ${fmt(large.bytes / 2 ** 20, 1)} MiB of data): compiled in ${fmt(large.compileMs)} ms, loaded into the evaluator in ${fmt(large.loadMs)} ms.`,
  '',
];
writeFileSync(join(HERE, 'results.md'), `${lines.join('\n')}\n`);
console.log(lines.join('\n'));
