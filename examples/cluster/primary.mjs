// `make cluster`: the users API in one process per core on 127.0.0.1 with node:cluster. This
// primary serves no request itself: it forks the workers (worker.mjs), forks a new one in place
// of a worker that dies unexpectedly, and stops them all on SIGTERM or SIGINT.
//   CLUSTER_WORKERS  how many workers (default: os.availableParallelism())
//   PORT             the port every worker serves (default 3000; 0 picks a free one)
// Once every worker listens it prints `listening <url> with <n> workers` and curl lines.
import cluster from 'node:cluster';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sign } from '../demo-jwt.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Within this window, more than RESTART_LIMIT unexpected deaths is a crash loop, not bad luck. */
const RESTART_WINDOW_MS = 60_000;
const RESTART_LIMIT = 5;
/** How long workers get to finish their requests on shutdown before they are killed. */
const STOP_GRACE_MS = 10_000;

const count = workerCount(process.env.CLUSTER_WORKERS);
const port = portNumber(process.env.PORT);
cluster.setupPrimary({ exec: join(HERE, 'worker.mjs') });

/** Slots, not cluster ids: a replacement takes its predecessor's slot (its WORKER_SLOT), so per-worker state on disk (a persistDir) stays one folder per slot. */
const slots = new Map();
const restarts = [];
let stopping = false;
let ready = false;

function workerCount(value) {
  // availableParallelism came in Node 18.14; the package supports every Node 18.
  if (value === undefined || value === '') return os.availableParallelism?.() ?? os.cpus().length;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    console.error(`CLUSTER_WORKERS must be a whole number of 1 or more, not ${JSON.stringify(value)}`);
    process.exit(2);
  }
  return number;
}

function portNumber(value) {
  if (value === undefined || value === '') return 3000;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > 65535) {
    console.error(`PORT must be a port number from 0 to 65535 (0: any free port), not ${JSON.stringify(value)}`);
    process.exit(2);
  }
  return number;
}

function fork(slot) {
  const worker = cluster.fork({ WORKER_SLOT: String(slot), PORT: String(port) });
  slots.set(worker, { slot, listening: false });
  return worker;
}

cluster.on('listening', (worker, address) => {
  const state = slots.get(worker);
  state.listening = true;
  if (ready) {
    console.log(`worker ${state.slot} (pid ${worker.process.pid}) listening again`);
    return;
  }
  if ([...slots.values()].every((s) => s.listening)) {
    ready = true;
    void printReady(address.port);
  }
});

cluster.on('exit', (worker, code, signal) => {
  const state = slots.get(worker);
  slots.delete(worker);
  if (stopping) {
    if (slots.size === 0) process.exit();
    return;
  }
  const how = signal ? `signal ${signal}` : `code ${code}`;
  // A worker that never listened failed at start-up (a bad ACL, a port in use): a new one would
  // fail the same way, so stop rather than fork it again and again.
  if (!state.listening) return giveUp(`worker ${state.slot} (pid ${worker.process.pid}) exited with ${how} before it listened`);
  const now = Date.now();
  restarts.push(now);
  while (restarts[0] < now - RESTART_WINDOW_MS) restarts.shift();
  if (restarts.length > RESTART_LIMIT) return giveUp(`${restarts.length} workers died within ${RESTART_WINDOW_MS / 1000} s (the last, worker ${state.slot}, with ${how})`);
  const replacement = fork(state.slot);
  console.log(`worker ${state.slot} (pid ${worker.process.pid}) died with ${how}; forked pid ${replacement.process.pid} in its place`);
});

/** Stops everything and exits non-zero, so that whatever started the primary (systemd, a container runtime) sees the failure. */
function giveUp(reason) {
  console.error(`${reason}: stopping every worker`);
  stop(1);
}

function stop(exitCode = 0) {
  if (stopping) return;
  stopping = true;
  process.exitCode = exitCode;
  if (slots.size === 0) process.exit();
  for (const worker of slots.keys()) worker.process.kill('SIGTERM');
  // A worker stuck in a request past the grace period is killed, so that a stop always ends.
  setTimeout(() => {
    for (const worker of slots.keys()) worker.process.kill('SIGKILL');
  }, STOP_GRACE_MS).unref();
}
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => stop(0));

async function printReady(actualPort) {
  const url = `http://127.0.0.1:${actualPort}/api/v1`;
  console.log(`listening ${url} with ${count} workers (pids ${[...slots.keys()].map((w) => w.process.pid).join(', ')})`);
  const user = await sign({ sub: 'u1', role: 'user', userId: [1, 3, 5] });
  console.log(`curl -i -H 'Authorization: Bearer ${user}' ${url}/users/3    # 200 from any worker: see x-worker`);
  console.log(`curl -i -H 'Authorization: Bearer ${user}' ${url}/users/2    # 403 from any worker`);
}

for (let slot = 0; slot < count; slot++) fork(slot);
