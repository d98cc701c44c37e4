// What shadow evaluation (bearerJwtAcl's `shadow`, SPEC 12) costs the guarded Express scenario: the
// same server with a decisionLog, with and without a shadow candidate, loaded at the same time on
// the same CPU (see ratios.mjs). The candidate revokes the user role's read:own on
// /users/{userId}, so every allowed request (half of them) diverges and is logged. Warm (the 1,000
// rotating tokens) at sampleRate 1 and 0, and cold (a new token and user every request, both
// caches miss, so the candidate evaluates every request uncached too) at sampleRate 1; then the
// CPU the shadow adds to a guarded request without HTTP (shadow-loop.mjs).
// Each pair is measured once with each server loaded first (see bothOrders). `node bench/shadow.mjs`
// or `BENCH_ONLY=shadow npm run bench` runs this part alone; BENCH_SHADOW_WINDOWS sets the windows
// per pair and order (default 5).
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bothOrders, median } from './ratios.mjs';
import { load, pinLoadGenerator, SHADOW_SCENARIOS, startServer } from './scenarios.mjs';
import { coldRequests, requestPool } from './tokens.mjs';

export const SHADOW_WINDOWS = Number(process.env.BENCH_SHADOW_WINDOWS ?? 5);
const HERE = dirname(fileURLToPath(import.meta.url));
// bench/shadow-loop.mjs's settings, and the processes of each (alternating).
const LOOP_SETTINGS = ['none', 'rate-0', 'same', 'rate-1'];
const LOOP_ROUNDS = 5;
const PAIRS = SHADOW_SCENARIOS.filter((scenario) => scenario.twin);

export async function shadowCost(windows = SHADOW_WINDOWS) {
  // Scenarios of the same server and settings share one process (warm and cold load it in turn).
  const processes = new Map();
  const servers = {};
  try {
    for (const scenario of SHADOW_SCENARIOS) {
      const key = JSON.stringify([scenario.server, scenario.env]);
      if (!processes.has(key)) processes.set(key, await startServer(scenario.name));
      servers[scenario.name] = processes.get(key);
    }
    const warm = await requestPool(SHADOW_SCENARIOS[0].path);
    const cold = coldRequests(SHADOW_SCENARIOS[0].path);
    const run = (name, seconds) => load(servers[name].url, SHADOW_SCENARIOS.find((s) => s.name === name).cold ? cold : warm, seconds);
    const pidOf = (name) => servers[name].child.pid;
    // A new process spends its first seconds compiling (on threads counted in its CPU time): each
    // one is loaded alone first, as run.mjs and telemetry.mjs do, or early windows read as low as 0.3.
    for (const scenario of SHADOW_SCENARIOS) await run(scenario.name, 2);
    const ratios = [];
    for (const { name, twin } of PAIRS) ratios.push({ name, twin, ...(await bothOrders(run, name, twin, { windows, pidOf })) });
    const status = {};
    for (const name of ['express-acl-shadow-1', 'express-acl-shadow-0']) status[name] = await (await fetch(`${servers[name].url}/bench/shadow`)).json();
    return { ratios, status, windows, loops: loops() };
  } finally {
    for (const { child } of processes.values()) child.kill();
  }
}

/** CPU nanoseconds per guarded request in bench/shadow-loop.mjs, median of LOOP_ROUNDS processes per setting, the settings alternating. */
function loops() {
  const samples = Object.fromEntries(LOOP_SETTINGS.map((setting) => [setting, []]));
  for (let round = 0; round < LOOP_ROUNDS; round++) {
    for (const setting of LOOP_SETTINGS) {
      const output = execFileSync(process.execPath, [join(HERE, 'shadow-loop.mjs')], { env: { ...process.env, BENCH_LOOP: setting, BENCH_LOOP_COUNT: '30000' }, encoding: 'utf8' });
      samples[setting].push(Number(/LOOP (\S+)/.exec(output)[1]));
    }
  }
  return Object.fromEntries(LOOP_SETTINGS.map((setting) => [setting, median(samples[setting])]));
}

export function shadowLines({ ratios, status, windows, loops }) {
  const fmt = (n) => n.toFixed(2);
  const orders = (r) => `${fmt(r.value)} (${fmt(r.first)}, ${fmt(r.second)})`;
  const label = (name) => SHADOW_SCENARIOS.find((s) => s.name === name).label;
  const one = status['express-acl-shadow-1'];
  const zero = status['express-acl-shadow-0'];
  const n = (value) => value.toLocaleString('en-US');
  const us = (ns) => (ns / 1000).toFixed(1);
  const more = (ns) => `${ns >= loops.none ? '+' : '-'}${us(Math.abs(ns - loops.none))} us`;
  return [
    '## Shadow evaluation',
    '',
    `The Express scenario (bearerJwtAcl, 1,000 rotating tokens, half denied) with a decisionLog that keeps each event in a bounded buffer of 10,000, as the uploader does before it encodes and sends them, against the same server with \`shadow\`: a candidate declaration without the user role's read:own on /users/{userId}, so every allowed request diverges (narrowed) and its divergence is logged. Cold: a new token and user every request, both servers' caches miss. Each pair loaded at the same time on the same CPU, median of ${windows} windows of 3 s with the shadow's load started first, and of ${windows} with its twin's; the ratio is the geometric mean of the two orders (each in brackets: two identical servers loaded together answer a few percent apart, in favour of one order). Per CPU second: the same with requests per CPU second of each process, all threads.`,
    '',
    '| server | against | requests ratio (shadow first, twin first) | per CPU second | target |',
    '|---|---|---:|---:|---:|',
    ...ratios.map((r) => `| ${label(r.name)}${SHADOW_SCENARIOS.find((s) => s.name === r.name).cold ? ' (cold)' : ''} | ${label(r.twin)} | ${orders(r)} | ${r.perCpu ? orders(r.perCpu) : ''} | ${target(r)} |`),
    '',
    `Sample rate 1, over the whole section: ${n(one.shadow.compared)} requests compared, ${n(one.shadow.divergences)} divergences (${n(one.divergencesLogged)} logged), ${n(one.shadow.errors)} errors, ${n(one.shadow.skipped.busy)} skipped as busy; sample rate 0: ${n(zero.shadow.compared)} compared.`,
    '',
    `CPU per request without HTTP (bench/shadow-loop.mjs: the guard in a loop over the same tokens, the candidate deciding as each response closes, CPU time of all threads, median of ${LOOP_ROUNDS} processes): ${us(loops.none)} us without shadow; sample rate 0 ${more(loops['rate-0'])}; sample rate 1 with the active declaration as candidate (compared, never diverging) ${more(loops.same)}; sample rate 1 with the revoking candidate (half the requests diverge and are logged) ${more(loops['rate-1'])}.`,
    '',
  ];
}

/** The targets: at most 10% of the requests at sample rate 1, nothing measurable at 0. */
function target(ratio) {
  const { target: least } = SHADOW_SCENARIOS.find((s) => s.name === ratio.name);
  if (least !== undefined) return `>= ${least.toFixed(2)} ${ratio.value >= least ? 'met' : 'MISSED'}`;
  return ratio.name === 'express-acl-shadow-0' ? '~ 1.00' : '';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  pinLoadGenerator();
  console.log(shadowLines(await shadowCost()).join('\n'));
}
