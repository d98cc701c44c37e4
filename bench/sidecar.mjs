// In-process policy.wasm against the same decisions from an OPA server over HTTP on 127.0.0.1
// (the usual sidecar deployment): one decision's latency through each, then the Express scenario's
// requests/s bare, deciding in-process, and deciding through OPA with and without the decision
// cache. OPA serves a bundle of the example ACL and runs on the servers' CPU, as a sidecar shares
// its pod's.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, PINNING, startServer } from './scenarios.mjs';
import { requestPool } from './tokens.mjs';

const require = createRequire(import.meta.url);
const { compileAcl, Evaluator } = require('svcgate/policy');
const { remoteOpa, writeBundle } = require('svcgate/fleet');
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
const EXAMPLE = join(ROOT, 'examples/users-api');

/** The servers compared, each loaded alone in alternating rounds. */
export const SIDECAR_SERVERS = [
  { name: 'express-bare', label: 'Express, bare' },
  { name: 'express-acl', label: 'Express + bearerJwtAcl, policy.wasm in-process' },
  { name: 'express-sidecar', label: 'Express + bearerJwtAcl, OPA sidecar (decision cache on, 1 s TTL)' },
  { name: 'express-sidecar', label: 'Express + bearerJwtAcl, OPA sidecar (decision cache off)', env: { SIDECAR_CACHE: '0' } },
];

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function startOpa(bundle) {
  const port = await freePort();
  const opa = execFileSync('bash', [join(ROOT, 'scripts/install-opa.sh'), '--find'], { encoding: 'utf8' }).trim();
  const command = [opa, 'run', '--server', '--addr', `127.0.0.1:${port}`, '--log-level', 'error', '--bundle', bundle];
  if (PINNING) command.unshift('taskset', '-c', PINNING.server);
  const child = spawn(command[0], command.slice(1), { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/health?bundles`)).status === 200) return { child, url };
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill();
  throw new Error('opa did not start');
}

/** The same mix as the HTTP scenarios: half the callers read their own user, half another's. */
function inputs() {
  const list = [];
  for (let i = 0; i < 1000; i++) {
    const own = (i % 5) + 1;
    const target = i % 2 === 0 ? own : (own % 5) + 1;
    list.push({ operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': [String(target)] }, claims: { 'path:userId': [String(own)] } });
  }
  return list;
}

/** p50/p99 in microseconds of `count` decisions, one at a time. */
async function latency(decide, count) {
  const list = inputs();
  const samples = [];
  for (let i = 0; i < count; i++) {
    const t0 = process.hrtime.bigint();
    await decide(list[i % list.length]);
    samples.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length / 2)], p99: samples[Math.floor(samples.length * 0.99)] };
}

export async function sidecar(seconds = 9, rounds = 3) {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-sidecar-'));
  const data = compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: join(EXAMPLE, 'permissions.yaml'), scheme: 'bearerAuth' });
  const bundle = join(dir, 'bundle.tar.gz');
  writeFileSync(bundle, await writeBundle({ data, wasm: readFileSync(join(ROOT, 'dist/policy.wasm')), rego: { 'policies/authz.rego': readFileSync(join(ROOT, 'policies/authz.rego'), 'utf8') } }));
  const opa = await startOpa(bundle);
  const servers = [];
  try {
    const local = await Evaluator.create(data, { decisionCacheSize: 0 });
    const remote = remoteOpa({ url: opa.url, decisionCacheSize: 0, timeoutMs: 5000 }).connect({ scheme: data.scheme, operations: data.operations, file: '<bench>' });
    // The source answers 503 until it has found OPA's data compiled for these operations.
    while ((await remote.evaluate(inputs()[0])).unavailable) await new Promise((resolve) => setTimeout(resolve, 20));
    await latency((input) => local.evaluate(input), 5000);
    await latency((input) => remote.evaluate(input), 2000);
    const decision = { inProcess: await latency((input) => local.evaluate(input), 20_000), sidecar: await latency((input) => remote.evaluate(input), 5000) };

    for (const server of SIDECAR_SERVERS) servers.push(await startServer(server.name, { OPA_URL: opa.url, ...server.env }));
    const pool = await requestPool((id) => `/api/v1/users/${id}`);
    const totals = SIDECAR_SERVERS.map(() => ({ requests: 0, seconds: 0, errors: 0, '5xx': 0 }));
    for (const { url } of servers) await load(url, pool, 1);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [...servers.keys()] : [...servers.keys()].reverse();
      for (const index of order) {
        const result = await load(servers[index].url, pool, seconds / rounds);
        totals[index].requests += result.requests.total;
        totals[index].seconds += result.duration;
        totals[index].errors += result.errors + result.timeouts;
        totals[index]['5xx'] += result['5xx'];
        process.stderr.write(`sidecar round ${round + 1}/${rounds} ${SIDECAR_SERVERS[index].label}: ${Math.round(result.requests.average)} req/s\n`);
      }
    }
    const http = SIDECAR_SERVERS.map((server, index) => ({ label: server.label, rps: totals[index].requests / totals[index].seconds, errors: totals[index].errors, '5xx': totals[index]['5xx'] }));
    return { decision, http };
  } finally {
    for (const { child } of servers) child.kill();
    opa.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await sidecar(), null, 2));
