// What telemetry costs the guarded Express scenario: @opentelemetry/api absent (svcgate finds
// nothing to record into), installed with no SDK registered (the API's no-op tracer and meter),
// and the SDK registered and recording every decision's span and metrics. Each pair is loaded at
// the same time on the same CPU (see ratios.mjs). `node bench/telemetry.mjs` runs this part alone.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bothOrders, median, WINDOWS } from './ratios.mjs';
import { load, pinLoadGenerator, startServer } from './scenarios.mjs';
import { JWT, requestPool } from './tokens.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const preload = (file) => ({ NODE_OPTIONS: `--require ${file}` });

export const TELEMETRY_SERVERS = {
  bare: { scenario: 'express-bare', label: 'Express, bare' },
  absent: { scenario: 'express-acl', env: preload(join(HERE, '../test/fixtures/without-opentelemetry.cjs')), label: 'Express + bearerJwtAcl, @opentelemetry/api absent' },
  api: { scenario: 'express-acl', label: 'Express + bearerJwtAcl, @opentelemetry/api installed, no SDK registered' },
  sdk: { scenario: 'express-acl', env: preload(join(HERE, 'with-opentelemetry-sdk.cjs')), label: 'Express + bearerJwtAcl, the SDK registered: a span and metrics per decision' },
};
const PAIRS = [
  ['absent', 'bare'],
  ['api', 'absent'],
  ['sdk', 'absent'],
];

export async function telemetryCost() {
  const servers = {};
  try {
    for (const [name, { scenario, env }] of Object.entries(TELEMETRY_SERVERS)) servers[name] = await startServer(scenario, env);
    const pool = await requestPool((id) => `/api/v1/users/${id}`);
    const run = (name, seconds) => load(servers[name].url, pool, seconds);
    for (const name of Object.keys(servers)) await run(name, 1);
    const spans = await recordedSpans(servers.sdk.child);
    const ratios = [];
    for (const [name, twin] of PAIRS) ratios.push({ name, twin, ...(await bothOrders(run, name, twin)) });
    return { ratios, spans, loops: loops(pool[0]) };
  } finally {
    for (const { child } of Object.values(servers)) child.kill();
  }
}

/** Nanoseconds per guarded request in bench/telemetry-loop.cjs, median of 5 processes per setting, the settings alternating. */
function loops({ path, headers }) {
  const settings = ['absent', 'api', 'sdk'];
  const env = { ...process.env, BENCH_LOOP: JSON.stringify({ jwt: JWT, path, authorization: headers.authorization }) };
  const samples = Object.fromEntries(settings.map((name) => [name, []]));
  for (let round = 0; round < 5; round++) {
    for (const name of settings) {
      const output = execFileSync(process.execPath, [join(HERE, 'telemetry-loop.cjs')], { env: { ...env, ...TELEMETRY_SERVERS[name].env }, encoding: 'utf8' });
      samples[name].push(Number(/LOOP (\S+)/.exec(output)[1]));
    }
  }
  return Object.fromEntries(settings.map((name) => [name, median(samples[name])]));
}

/** The spans the SDK server exported so far (its batches go out every 5 s): none would mean nothing was recorded. */
async function recordedSpans(child) {
  await new Promise((resolve) => setTimeout(resolve, 5500));
  const answer = new Promise((resolve) => {
    const onData = (chunk) => {
      const spans = /SPANS (\d+)/.exec(chunk.toString())?.[1];
      if (spans === undefined) return;
      child.stdout.off('data', onData);
      resolve(Number(spans));
    };
    child.stdout.on('data', onData);
  });
  child.kill('SIGUSR2');
  return answer;
}

export function telemetryLines({ ratios, spans, loops }) {
  const fmt = (n) => n.toFixed(3);
  return [
    '## Telemetry',
    '',
    `The Express scenario (bearerJwtAcl) with OpenTelemetry absent, installed without an SDK, and with the SDK recording (bench/with-opentelemetry-sdk.cjs: every span sampled and ended into a BatchSpanProcessor with its defaults, whose exporter drops each batch, ${spans.toLocaleString('en-US')} spans exported after the warm-up; under this load its queue of 2,048 is full between batches and it drops the rest, as it would in production), each pair loaded at the same time on the same CPU, median of ${WINDOWS} windows of 3 s, once with each server's load started first; the ratio is the geometric mean of the two orders. Absent: svcgate looked for the API once and reads a variable per request; installed without an SDK: it looks up the API's two global providers per request and finds both no-ops.`,
    '',
    '| server | against | requests ratio | loaded first | loaded second |',
    '|---|---|---:|---:|---:|',
    ...ratios.map(({ name, twin, value, first, second }) => `| ${TELEMETRY_SERVERS[name].label} | ${TELEMETRY_SERVERS[twin].label} | ${fmt(value)} | ${fmt(first)} | ${fmt(second)} |`),
    '',
    `The same guarded request without HTTP (bench/telemetry-loop.cjs: bearerJwtAcl's middleware in a loop, token and decision cached, median of 5 processes): ${loops.absent.toFixed(0)} ns with the API absent, ${loops.api.toFixed(0)} ns with the API alone (${((loops.api / loops.absent - 1) * 100).toFixed(1)}%), ${loops.sdk.toFixed(0)} ns with the SDK recording (${((loops.sdk / loops.absent - 1) * 100).toFixed(0)}%).`,
    '',
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  pinLoadGenerator();
  console.log(telemetryLines(await telemetryCost()).join('\n'));
}
