// `npm run bench`: every scenario in one run, side by side, and the ratios of each guarded
// scenario to its unguarded twin; then the evaluator alone, its memory, the compile cost of a
// large ACL, the event-loop stall while a bundle is activated under load, and in-process decisions
// against an OPA sidecar; svcgate beside the floor and its peers (peers.mjs). Writes bench/results.md.
// BENCH_SECONDS sets the seconds per scenario (default 10), BENCH_ROUNDS the rounds they are split
// into (default 10), BENCH_PEER_WINDOWS the windows per pair of the peers (default 7).
// BENCH_ONLY=peers runs only the peers' section and prints it, leaving results.md as it is;
// BENCH_ONLY=shadow the same for the shadow evaluation's (shadow.mjs).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { activationStall } from './activation-stall.mjs';
import { clusterScaling } from './cluster.mjs';
import { median, simultaneousRatio, WINDOWS } from './ratios.mjs';
import { largeApi } from './large-acl.mjs';
import { peerLines, peers } from './peers.mjs';
import { load, pinLoadGenerator, PINNING, SCENARIOS, startServer } from './scenarios.mjs';
import { sidecar } from './sidecar.mjs';
import { shadowCost, shadowLines } from './shadow.mjs';
import { signatureCosts, signatureLines } from './signatures.mjs';
import { telemetryCost, telemetryLines } from './telemetry.mjs';
import { coldRequests, requestPool, signedPools } from './tokens.mjs';

const require = createRequire(import.meta.url);
const { compileAcl, Evaluator } = require('svcgate/policy');
const HERE = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);

async function httpScenarios() {
  const servers = {};
  const pools = {};
  const signed = await signedPools(SCENARIOS.find((scenario) => scenario.signed).path);
  for (const scenario of SCENARIOS) {
    servers[scenario.name] = await startServer(scenario.name);
    pools[scenario.name] = scenario.signed ? signed.pools[scenario.signed] : scenario.cold ? coldRequests(scenario.path) : await requestPool(scenario.path);
  }
  const totals = Object.fromEntries(SCENARIOS.map((s) => [s.name, { requests: 0, seconds: 0, rps: [], p50: [], p99: [], errors: 0, statuses: {} }]));
  const run = (name, seconds) => load(servers[name].url, pools[name], seconds);
  let simultaneous;
  try {
    for (const scenario of SCENARIOS) await run(scenario.name, 1);
    // Rounds alternate the order, so slow drift of the machine hits every scenario alike.
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? SCENARIOS : [...SCENARIOS].reverse();
      for (const scenario of order) {
        const result = await run(scenario.name, SECONDS / ROUNDS);
        const total = totals[scenario.name];
        total.requests += result.requests.total;
        total.seconds += result.duration;
        total.rps.push(result.requests.total / result.duration);
        total.p50.push(result.latency.p50);
        total.p99.push(result.latency.p99);
        total.errors += result.errors + result.timeouts;
        total.statuses['2xx'] = (total.statuses['2xx'] ?? 0) + result['2xx'];
        total.statuses['4xx'] = (total.statuses['4xx'] ?? 0) + result['4xx'];
        total.statuses['5xx'] = (total.statuses['5xx'] ?? 0) + result['5xx'];
        process.stderr.write(`round ${round + 1}/${ROUNDS} ${scenario.name}: ${Math.round(result.requests.average)} req/s\n`);
      }
    }
    simultaneous = {};
    for (const [name, twin] of PAIRS) simultaneous[`${name}/${twin}`] = await simultaneousRatio(run, name, twin, { pidOf: (server) => servers[server].child.pid });
  } finally {
    for (const { child } of Object.values(servers)) child.kill();
    signed.close();
  }
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
  const alternating = (name, twin) => median(totals[name].rps.map((rps, round) => rps / totals[twin].rps[round]));
  const rows = SCENARIOS.map((scenario) => ({
    ...scenario,
    rps: totals[scenario.name].requests / totals[scenario.name].seconds,
    p50: mean(totals[scenario.name].p50),
    p99: mean(totals[scenario.name].p99),
    statuses: totals[scenario.name].statuses,
    errors: totals[scenario.name].errors,
    alternating: scenario.twin && alternating(scenario.name, scenario.twin),
    ratio: scenario.twin && simultaneous[`${scenario.name}/${scenario.twin}`],
  }));
  return { rows, simultaneous, oasShare: simultaneous['oas-acl/oas-security'], oasShareOfDenies: simultaneous['oas-acl/oas-deny-half'] };
}

// Each guarded scenario with its twin, and svcgate's own share on @oas-tools/core: against the
// host's security step alone, and against the same answering its own 403s to as many requests.
const SHARES = [
  ['oas-acl', 'oas-security'],
  ['oas-acl', 'oas-deny-half'],
];
const PAIRS = [...SCENARIOS.filter((s) => s.twin).map((s) => [s.name, s.twin]), ...SHARES];
const ALONE_ROUNDS = 41;
const LARGE_COMPILES = 5;

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
  const warm = await Evaluator.create(data);
  const floor = await Evaluator.create(data, { decisionCacheSize: 0, policy: trivialPolicy() });
  timeDecisions(cold, inputs, 20_000);
  timeDecisions(warm, inputs, 20_000);
  timeDecisions(floor, inputs, 20_000);
  // Many short rounds of each, back to back in alternating order: this machine's speed changes in
  // spells of seconds, by up to half, so the ratio to the floor is taken within each round, where
  // both were timed at the same speed, and its median over the rounds counts.
  const windows = { uncached: [], cached: [], trivial: [] };
  const paired = { uncached: cold, trivial: floor };
  const ratios = [];
  for (let round = 0; round < ALONE_ROUNDS; round++) {
    for (const kind of round % 2 === 0 ? ['uncached', 'trivial'] : ['trivial', 'uncached']) windows[kind].push(timeDecisions(paired[kind], inputs, 5_000));
    windows.cached.push(timeDecisions(warm, inputs, 20_000));
    ratios.push(windows.uncached[round].p50 / windows.trivial[round].p50);
  }
  ratios.sort((a, b) => a - b);
  const toFloor = { value: median(ratios), low: ratios[0], high: ratios[ratios.length - 1] };
  return { uncached: medianWindow(windows.uncached), cached: medianWindow(windows.cached), trivial: medianWindow(windows.trivial), toFloor, memory: await memoryGrowth() };
}

/**
 * A list operation's plan (SPEC 11) against the decision of one of its items, both uncached, on the
 * orders example: 1,000 customers each claiming a few orders, alternating in short rounds as above.
 */
function planAgainstItem() {
  const example = join(HERE, '../examples/orders-api');
  const data = compileAcl({ openapi: join(example, 'openapi.yaml'), acl: join(example, 'permissions.yaml') });
  const plans = [];
  const items = [];
  for (let i = 0; i < 1000; i++) {
    const claims = { 'path:orderId': [String(i + 1), String(i + 1001), String(i + 2001)] };
    plans.push({ operation: 'GET /orders', role: 'customer', params: {}, claims });
    items.push({ operation: 'GET /orders/{orderId}', role: 'customer', params: { 'path:orderId': [String(i % 2 === 0 ? i + 1 : i + 3001)] }, claims });
  }
  return { data, plans, items };
}

async function planCost() {
  const { data, plans, items } = planAgainstItem();
  const cold = await Evaluator.create(data, { decisionCacheSize: 0 });
  const warm = await Evaluator.create(data);
  timeDecisions(cold, plans, 20_000);
  timeDecisions(cold, items, 20_000);
  timeDecisions(warm, plans, 20_000);
  const windows = { plan: [], item: [], cached: [] };
  const ratios = [];
  for (let round = 0; round < ALONE_ROUNDS; round++) {
    for (const kind of round % 2 === 0 ? ['plan', 'item'] : ['item', 'plan']) windows[kind].push(timeDecisions(cold, kind === 'plan' ? plans : items, 5_000));
    windows.cached.push(timeDecisions(warm, plans, 20_000));
    ratios.push(windows.plan[round].p50 / windows.item[round].p50);
  }
  ratios.sort((a, b) => a - b);
  return { plan: medianWindow(windows.plan), item: medianWindow(windows.item), cached: medianWindow(windows.cached), toItem: { value: median(ratios), low: ratios[0], high: ratios[ratios.length - 1] } };
}

/** bench/trivial/authz.rego built to Wasm: one opa-wasm call with the same input and a decision of the same shape, deciding nothing. */
function trivialPolicy() {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-trivial-'));
  const opa = execFileSync('bash', [join(HERE, '../scripts/install-opa.sh'), '--find'], { encoding: 'utf8' }).trim();
  execFileSync(opa, ['build', '-t', 'wasm', '-e', 'svcgate/authz/decision', '-o', join(dir, 'bundle.tar.gz'), join(HERE, 'trivial/authz.rego')]);
  execFileSync('tar', ['-xzf', join(dir, 'bundle.tar.gz'), '-C', dir, '/policy.wasm']);
  return readFileSync(join(dir, 'policy.wasm'));
}

function medianWindow(windows) {
  const p50s = windows.map((w) => w.p50);
  return { p50: median(p50s), p99: median(windows.map((w) => w.p99)), low: Math.min(...p50s), high: Math.max(...p50s) };
}

/** Resident set, live heap and Wasm memory at every 100,000 decisions up to 1,000,000 (after a warm-up), in a fresh process of its own. */
function memoryGrowth() {
  const child = spawn(process.execPath, ['--expose-gc', join(HERE, 'memory.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`memory.mjs exited with ${code}`)))));
}

/**
 * 1,000 roles x 1,000 paths: compiled LARGE_COMPILES times, each from a new declaration (strings
 * V8 has hashed once would make a later compile of the same objects faster), median counted; the
 * last one loaded into the evaluator.
 */
async function largeAcl() {
  const compiles = [];
  let data;
  for (let i = 0; i < LARGE_COMPILES; i++) {
    const { openapi, acl } = largeApi();
    const t0 = performance.now();
    data = compileAcl({ openapi, acl });
    compiles.push(performance.now() - t0);
  }
  compiles.sort((a, b) => a - b);
  const compiled = performance.now();
  const evaluator = await Evaluator.create(data);
  const loaded = performance.now();
  const decision = evaluator.evaluate({ operation: 'GET /r7/{id}', role: 'role1', params: { 'path:id': ['1'] } });
  // opa-wasm's own fields (not svcgate's API): where OPA's heap started, and where it ends once the data is parsed.
  const wasm = evaluator.policy;
  return { compileMs: median(compiles), compileLowMs: compiles[0], compileHighMs: compiles[compiles.length - 1], loadMs: loaded - compiled, bytes: Buffer.byteLength(JSON.stringify({ svcgate: { acl: data } })), heapBytes: wasm.dataHeapPtr - wasm.baseHeapPtr, memoryBytes: wasm.mem.buffer.byteLength, allow: decision.allow };
}

/**
 * The resident set after a GC wanders by +-15% from one checkpoint to the next with no trend (the
 * allocator keeps or returns pages as it likes), so growth compares the median of the first three
 * checkpoints with the median of the last three; the live heap shows what is actually kept.
 */
function memoryLine(samples) {
  const mib = (bytes) => fmt(bytes / 2 ** 20, 1);
  const early = median(samples.slice(0, 3).map((s) => s.rss));
  const late = median(samples.slice(-3).map((s) => s.rss));
  const growth = late / early - 1;
  const rss = samples.map((s) => s.rss);
  const [first, last] = [samples[0], samples[samples.length - 1]];
  return `Memory (a fresh process, after 100,000 decisions to warm up, then a GC at every 100,000 decisions up to 1,000,000): resident set ${mib(Math.min(...rss))}-${mib(Math.max(...rss))} MiB, median of the first three checkpoints ${mib(early)} MiB, of the last three ${mib(late)} MiB: ${growth >= 0 ? '+' : ''}${fmt(growth * 100, 1)}% (target: no more than 10% growth, ${growth <= 0.1 ? 'met' : 'MISSED'}); live heap ${mib(first.heapUsed)} MiB after ${fmt(first.decisions)}, ${mib(last.heapUsed)} MiB after ${fmt(last.decisions)}; OPA's Wasm memory ${mib(first.wasmBytes)} MiB, then ${mib(last.wasmBytes)} MiB.`;
}

const ratioText = (ratio) => `${fmt(ratio.value, 2)} (${fmt(ratio.low, 2)}-${fmt(ratio.high, 2)})`;
const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

pinLoadGenerator();
if (process.env.BENCH_ONLY === 'peers') {
  console.log(peerLines(await peers()).join('\n'));
  process.exit(0);
}
if (process.env.BENCH_ONLY === 'shadow') {
  console.log(shadowLines(await shadowCost()).join('\n'));
  process.exit(0);
}
const { rows: http, simultaneous, oasShare, oasShareOfDenies } = await httpScenarios();
const beside = await peers(simultaneous);
const alone = await evaluatorAlone();
const plan = await planCost();
const large = await largeAcl();
const signatures = await signatureCosts();
// The large ACL activates for seconds under load: its load lasts long enough to cover it.
const stalls = [await activationStall('example', 6), await activationStall('large', 40)];
const side = await sidecar();
const telemetry = await telemetryCost();
const shadow = await shadowCost();
const cluster = await clusterScaling();

const lines = [
  '# svcgate benchmark',
  '',
  `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. Each server in its own process${PINNING ? ` on CPU ${PINNING.server}` : ''}, autocannon in this one${PINNING ? ` on CPU ${PINNING.load}` : ''}, 100 connections per server, pipelining 1. Requests rotate over 1,000 distinct valid tokens; half ask for the caller's own user (allowed), half for another (denied). Requests/s and latency: ${SECONDS} s per scenario alone, in ${ROUNDS} rounds of alternating order. Ratio to twin: the two servers loaded at the same time on the same CPU, median of ${WINDOWS} windows of 3 s (lowest-highest in brackets); per CPU second: the ratio of requests per CPU second of each server process in the same windows (all its threads, from /proc; not flattered by work handed to libuv's thread pool, nor pulled toward 1 when a cheap server waits for requests; see "svcgate beside its peers"); the ratio of the alternating rounds (median per round) is given beside it, for comparison, and moves with the machine's speed.`,
  '',
  '| scenario | requests/s | p50 ms | p99 ms | 2xx / 4xx / 5xx | ratio to twin | per CPU second | alternating | target |',
  '|---|---:|---:|---:|---|---:|---:|---:|---:|',
  ...http.map((s) => `| ${s.label} | ${fmt(s.rps)} | ${fmt(s.p50, 1)} | ${fmt(s.p99, 1)} | ${s.statuses['2xx']} / ${s.statuses['4xx']} / ${s.statuses['5xx']} | ${s.ratio ? `${ratioText(s.ratio)} of ${s.twin}` : ''} | ${s.ratio?.perCpu ? ratioText(s.ratio.perCpu) : ''} | ${s.alternating ? fmt(s.alternating, 2) : ''} | ${s.target === undefined ? '' : `>= ${s.target}${s.ratio.value >= s.target ? ' met' : ' MISSED'}`} |`),
  '',
  `On @oas-tools/core, svcgate's own share (the guarded scenario against the host's security step alone, loaded at the same time): ${ratioText(oasShare)} (target: 0.85, ${oasShare.value >= 0.85 ? 'met' : 'MISSED'}). That twin answers every request 200, where the guarded one denies half, and the host answers each deny 403 through its error handler; against the twin that answers the same share of requests with the host's own 403 (no svcgate code), which leaves the host's cost of a deny out: ${ratioText(oasShareOfDenies)}.`,
  '',
  `| evaluator alone (median of ${ALONE_ROUNDS} rounds) | p50 us (lowest-highest round) | p99 us | target p50 |`,
  '|---|---:|---:|---:|',
  `| uncached (decision cache off) | ${fmt(alone.uncached.p50, 2)} (${fmt(alone.uncached.low, 2)}-${fmt(alone.uncached.high, 2)}) | ${fmt(alone.uncached.p99, 2)} | <= 2 x floor |`,
  `| cached | ${fmt(alone.cached.p50, 2)} (${fmt(alone.cached.low, 2)}-${fmt(alone.cached.high, 2)}) | ${fmt(alone.cached.p99, 2)} | <= 1 ${alone.cached.p50 <= 1 ? 'met' : 'MISSED'} |`,
  `| floor: a trivial policy (bench/trivial/authz.rego), same input, uncached | ${fmt(alone.trivial.p50, 2)} (${fmt(alone.trivial.low, 2)}-${fmt(alone.trivial.high, 2)}) | ${fmt(alone.trivial.p99, 2)} | |`,
  '',
  `Uncached evaluation against the floor, timed back to back in each round: ${ratioText(alone.toFloor)} times (target: no more than 2, ${alone.toFloor.value <= 2 ? 'met' : 'MISSED'}); the two medians of the table give ${fmt(alone.uncached.p50 / alone.trivial.p50, 2)}.`,
  '',
  `A list operation's plan (SPEC 11, the orders example, a customer claiming 3 orders), uncached: ${fmt(plan.plan.p50, 2)} us (${fmt(plan.plan.low, 2)}-${fmt(plan.plan.high, 2)}), against ${fmt(plan.item.p50, 2)} us for the uncached decision of one of its items (\`GET /orders/{orderId}\`), timed back to back in each round: ${ratioText(plan.toItem)} times; cached: ${fmt(plan.cached.p50, 2)} us. One evaluation of the same policy either way; the plan's extra is handing over a larger result (docs/performance.md).`,
  '',
  memoryLine(alone.memory),
  '',
  `Large ACL (1,000 roles x 1,000 paths, ${fmt(large.bytes / 2 ** 20, 2)} MiB of data JSON): compiled in ${fmt(large.compileMs)} ms (median of ${LARGE_COMPILES}, ${fmt(large.compileLowMs)}-${fmt(large.compileHighMs)}; target: 1,500, ${large.compileMs <= 1500 ? 'met' : 'MISSED'}), loaded into a new evaluator in ${fmt(large.loadMs)} ms (target: 1,000, ${large.loadMs <= 1000 ? 'met' : 'MISSED'}); OPA's heap holds ${fmt(large.heapBytes / 2 ** 20, 2)} MiB after loading it, ${fmt(large.heapBytes / large.bytes, 1)} times the JSON (target: 5, ${large.heapBytes / large.bytes <= 5 ? 'met' : 'MISSED'}), in a Wasm memory of ${fmt(large.memoryBytes / 2 ** 20, 1)} MiB (reserved; pages never written are not resident).`,
  '',
  ...signatureLines(signatures),
  '',
  ...peerLines(beside),
  '',
  '## Bundle activation under load',
  '',
  "A server of the Express scenario whose ACL comes from a signed bundle (ES256) that it polls every 0.5 s from express.static, under the same load as above; once it serves the first revision a second is published. Longest stall: the worst lateness of a 1 ms timer in the server, from the last poll before the new revision to its activation (download, signature and hashes, data checks, new Wasm instance); serving alone: the same over the polls before, under the same load. Download: the new revision's GET; activation: from the end of the download to the swap. The work is split into slices of about 10 ms between which requests are served, so under load an activation takes several times its CPU time.",
  '',
  '| ACL | bundle | longest stall, serving alone | longest stall, activating | download | activation under load | 2xx / 4xx / 5xx / errors |',
  '|---|---:|---:|---:|---:|---:|---|',
  ...stalls.map((s) => `| ${s.size === 'large' ? '1,000 roles x 1,000 paths' : 'example'} | ${fmt(s.bundleBytes / 1024)} KiB | ${fmt(s.baselineMs)} ms | ${fmt(s.stallMs)} ms | ${fmt(s.downloadMs)} ms | ${fmt(s.activationMs)} ms | ${s.statuses['2xx']} / ${s.statuses['4xx']} / ${s.statuses['5xx']} / ${s.statuses.errors} |`),
  '',
  '## In-process policy.wasm against an OPA sidecar',
  '',
  `The same decisions from \`opa run --server\` serving a bundle of the example ACL on 127.0.0.1 (on the servers' CPU), through \`remoteOpa\`. One decision at a time, decision caches off: in-process p50 ${fmt(side.decision.inProcess.p50, 1)} us (p99 ${fmt(side.decision.inProcess.p99, 1)}), sidecar p50 ${fmt(side.decision.sidecar.p50, 1)} us (p99 ${fmt(side.decision.sidecar.p99, 1)}): the sidecar takes ${fmt(side.decision.sidecar.p50 / side.decision.inProcess.p50, 0)} times as long. The Express scenario with each, loaded alone in alternating rounds:`,
  '',
  '| server | requests/s | of bare Express | 5xx | errors |',
  '|---|---:|---:|---:|---:|',
  ...side.http.map((row) => `| ${row.label} | ${fmt(row.rps)} | ${fmt(row.rps / side.http[0].rps, 2)} | ${row['5xx']} | ${row.errors} |`),
  '',
  ...telemetryLines(telemetry),
  ...shadowLines(shadow),
  '## Many cores',
  '',
  cluster.markdown,
];
writeFileSync(join(HERE, 'results.md'), `${lines.join('\n')}\n`);
console.log(lines.join('\n'));
