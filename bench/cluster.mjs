// Many cores: the requests/s of the Express scenarios (bare, guarded warm, guarded cold) served by
// one and by two worker processes of node:cluster (cluster-primary.mjs), the same load on each in
// alternating rounds, with the CPU the servers' processes used per request (from /proc).
// `node bench/cluster.mjs` prints the table; run.mjs can call clusterScaling().
// BENCH_CLUSTER_SECONDS sets the seconds each server is loaded per round (default 2),
// BENCH_CLUSTER_ROUNDS the rounds (default 9; about two minutes in all).
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, median } from './ratios.mjs';
import { load, PINNING, SCENARIOS } from './scenarios.mjs';
import { coldRequests, requestPool } from './tokens.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const WORKER_COUNTS = [1, 2];
/** The Express scenarios of run.mjs, each served by server.mjs's `server` in every worker. */
const SERVERS = [
  { name: 'express-bare', server: 'express-bare', label: 'Express, bare' },
  { name: 'express-acl', server: 'express-acl', label: 'Express + bearerJwtAcl, 1,000 rotating tokens, half denied' },
  { name: 'express-acl-cold', server: 'express-acl', label: 'Express + bearerJwtAcl, every request a new token and user', cold: true },
];
const userPath = SCENARIOS.find((scenario) => scenario.name === 'express-acl').path;

/**
 * Where the servers and the load generator run. Two workers need two cores, so the servers get
 * the last two when at least two others remain for the load generator; with fewer cores (2 or 3)
 * the servers may use every core and the load generator shares them, which the output says.
 */
// Read when this module loads, before run.mjs pins itself to the load CPU: asked later, the count
// is of that CPU alone (availableParallelism follows this process's affinity).
const MACHINE_CORES = availableParallelism();

function placement() {
  const cores = MACHINE_CORES;
  if (!PINNING) return { cores, servers: null, load: null, loadCores: cores, shared: true };
  if (cores >= 4) return { cores, servers: `${cores - 2}-${cores - 1}`, load: `0-${cores - 3}`, loadCores: cores - 2, shared: false };
  return { cores, servers: `0-${cores - 1}`, load: PINNING.load, loadCores: cores === 2 ? 1 : 2, shared: true };
}

/** This process's CPU list as taskset prints it, to put back when done (run.mjs pins itself too). */
function affinity() {
  const out = spawnSync('taskset', ['-c', '-p', String(process.pid)], { encoding: 'utf8' }).stdout;
  return /: (\S+)\s*$/.exec(out)?.[1];
}

function pin(cpus) {
  spawnSync('taskset', ['-a', '-c', '-p', cpus, String(process.pid)]);
}

/** Starts a cluster of `workers` processes of one server; resolves once every worker listens. */
async function startCluster(server, workers, cpus) {
  const command = [process.execPath, join(HERE, 'cluster-primary.mjs'), server, String(workers)];
  // Children inherit this process's affinity: without taskset they would share the load generator's CPU.
  if (cpus) command.unshift('taskset', '-c', cpus);
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  for await (const line of createInterface({ input: child.stdout })) {
    const found = /^PORT (\d+) PIDS ([\d,]+)$/.exec(line);
    // taskset execs the command, so child.pid is the primary's with or without it.
    if (found) return { child, url: `http://127.0.0.1:${found[1]}`, pids: [child.pid, ...found[2].split(',').map(Number)] };
  }
  throw new Error(`the ${server} cluster of ${workers} exited before every worker listened`);
}

/**
 * CPU seconds (user and system) the processes have used so far; undefined without /proc. On a
 * machine shared with other work, requests/s moves with what the others take; the CPU a request
 * costs moves less, and says whether two processes cost more per request than one.
 */
function cpuOf(pids) {
  try {
    return pids.reduce((total, pid) => total + cpuSeconds(pid), 0);
  } catch {
    return undefined;
  }
}

/**
 * Measures every server with 1 and 2 workers, alternating the order of the rounds so that the
 * machine's drift hits each alike. Returns one row per server and worker count (requests/s, p50,
 * p99, CPU per request and cores busy: medians of the rounds; statuses and errors: sums; for 2
 * workers, `scaling`: the median over the rounds of the 2-worker requests/s over the 1-worker
 * requests/s of the same round), the placement, the load averages and the table as markdown.
 */
export async function clusterScaling({ seconds = Number(process.env.BENCH_CLUSTER_SECONDS ?? 2), rounds = Number(process.env.BENCH_CLUSTER_ROUNDS ?? 9) } = {}) {
  const where = placement();
  // The 1-minute load average before and after: work of others on the machine shows in it.
  const loadAverages = [loadavg()[0]];
  const restore = where.load ? affinity() : undefined;
  if (where.load) pin(where.load);
  const configs = SERVERS.flatMap((server) => WORKER_COUNTS.map((workers) => ({ ...server, workers, key: `${server.name}/${workers}` })));
  const clusters = {};
  const pools = {};
  const runs = Object.fromEntries(configs.map((config) => [config.key, []]));
  try {
    for (const config of configs) {
      clusters[config.key] = await startCluster(config.server, config.workers, where.servers);
      pools[config.key] = config.cold ? coldRequests(userPath) : await requestPool(userPath);
    }
    // A warm-up for each: JIT, and the caches of every worker, each of which fills its own
    // (at 1,000 requests/s a worker sees about 2,000 requests of the pool of 1,000 tokens).
    for (const config of configs) await load(clusters[config.key].url, pools[config.key], 2);
    for (let round = 0; round < rounds; round++) {
      for (const config of round % 2 === 0 ? configs : [...configs].reverse()) {
        const { url, pids } = clusters[config.key];
        const before = cpuOf(pids);
        const result = await load(url, pools[config.key], seconds);
        const after = cpuOf(pids);
        runs[config.key].push({ ...result, cpuSeconds: before === undefined || after === undefined ? undefined : after - before });
        process.stderr.write(`cluster round ${round + 1}/${rounds} ${config.key}: ${Math.round(result.requests.total / result.duration)} req/s\n`);
      }
    }
  } finally {
    for (const { child } of Object.values(clusters)) child.kill('SIGTERM');
    if (restore) pin(restore);
  }
  loadAverages.push(loadavg()[0]);
  const rps = (result) => result.requests.total / result.duration;
  const rows = configs.map((config) => {
    const results = runs[config.key];
    const sum = (field) => results.reduce((total, result) => total + result[field], 0);
    const row = {
      name: config.name,
      label: config.label,
      workers: config.workers,
      rps: median(results.map(rps)),
      p50: median(results.map((result) => result.latency.p50)),
      p99: median(results.map((result) => result.latency.p99)),
      statuses: { '2xx': sum('2xx'), '4xx': sum('4xx'), '5xx': sum('5xx') },
      // Primary and workers together: microseconds of CPU per request answered, and cores kept busy.
      cpuUsPerRequest: results.some((result) => result.cpuSeconds === undefined) ? undefined : median(results.map((result) => (result.cpuSeconds * 1e6) / result.requests.total)),
      coresBusy: results.some((result) => result.cpuSeconds === undefined) ? undefined : median(results.map((result) => result.cpuSeconds / result.duration)),
      errors: sum('errors') + sum('timeouts'),
    };
    if (config.workers > 1) {
      const single = runs[`${config.name}/1`];
      const ratios = results.map((result, round) => rps(result) / rps(single[round])).sort((a, b) => a - b);
      row.scaling = { value: median(ratios), low: ratios[0], high: ratios[ratios.length - 1] };
    }
    return row;
  });
  return { rows, placement: where, loadAverages, markdown: markdown(rows, where, seconds, rounds, loadAverages) };
}

const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function markdown(rows, where, seconds, rounds, loadAverages) {
  const servers = where.servers ? `on CPUs ${where.servers}` : 'on any CPU';
  const loadCpus = where.load ? `on CPU${where.load.includes('-') ? 's' : ''} ${where.load}` : 'on any CPU';
  const shared = where.shared
    ? `The load generator had ${where.loadCores} of the machine's ${where.cores} cores and the workers may run on all of them: with two workers it competes with them for the same cores, so the 2-process rows understate what a machine whose clients are elsewhere gets.`
    : `The load generator had ${where.loadCores} of the machine's ${where.cores} cores to itself, the servers the other two.`;
  const bare = rows.find((row) => row.name === 'express-bare' && row.workers === 2);
  const cpu = (row, field, digits) => (row[field] === undefined ? '' : fmt(row[field], digits));
  return [
    `Node ${process.version}, ${where.cores} cores. Each server is a node:cluster primary with 1 or 2 workers of server.mjs's scenario (bench/cluster-primary.mjs) ${servers}; one autocannon process (one thread, 100 connections, pipelining 1) ${loadCpus}. ${shared} Each server loaded alone for ${seconds} s per round, ${rounds} rounds of alternating order; requests/s, p50, p99 and the CPU columns are the medians of the rounds, and 2 / 1 is the median of the rounds' own ratios (lowest-highest in brackets). CPU: user and system time of the primary and its workers (/proc), per request answered and per second (cores kept busy); it moves less than requests/s with what other work on the machine takes. The machine's 1-minute load average was ${fmt(loadAverages[0], 1)} before the run and ${fmt(loadAverages[1], 1)} after it, on ${where.cores} cores (the second counts the run's own busy processes).`,
    '',
    '| server | processes | requests/s | p50 ms | p99 ms | 2xx / 4xx / 5xx / errors | CPU us per request | cores busy | 2 / 1 |',
    '|---|---:|---:|---:|---:|---|---:|---:|---:|',
    ...rows.map((row) => `| ${row.label} | ${row.workers} | ${fmt(row.rps)} | ${fmt(row.p50, 1)} | ${fmt(row.p99, 1)} | ${row.statuses['2xx']} / ${row.statuses['4xx']} / ${row.statuses['5xx']} / ${row.errors} | ${cpu(row, 'cpuUsPerRequest', 0)} | ${cpu(row, 'coresBusy', 2)} | ${row.scaling ? `${fmt(row.scaling.value, 2)} (${fmt(row.scaling.low, 2)}-${fmt(row.scaling.high, 2)})` : ''} |`),
    '',
    `Whether the load generator was the limit: bare Express, which does the least work per request, answered ${fmt(bare.scaling.value, 2)} times as many requests with 2 processes as with 1; near 1, the load generator (not the servers) set the pace of every row; near 2, the servers did.`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { markdown: table } = await clusterScaling();
  console.log(table);
}
