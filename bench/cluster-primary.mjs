// The cluster bench's server: `node cluster-primary.mjs <scenario> <workers>` forks that many
// workers of server.mjs's scenario with node:cluster, all on one port of 127.0.0.1 (a port 0 that
// the first worker draws is shared by the others), and prints
// "PORT <n> PIDS <pid>,<pid>..." (the workers') once every one listens. SIGTERM stops the workers;
// a worker that dies is not replaced (a bench must not hide a crash).
import cluster from 'node:cluster';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const [scenario, count] = [process.argv[2], Number(process.argv[3])];
// silent: each worker's own "PORT" line stays here; its errors still reach the terminal.
cluster.setupPrimary({ exec: join(HERE, 'server.mjs'), args: [scenario], silent: true });

let listening = 0;
let stopping = false;
cluster.on('listening', (_worker, address) => {
  listening += 1;
  if (listening === count) console.log(`PORT ${address.port} PIDS ${Object.values(cluster.workers).map((worker) => worker.process.pid).join(',')}`);
});
cluster.on('exit', (worker, code, signal) => {
  if (!stopping) {
    console.error(`a ${scenario} worker (pid ${worker.process.pid}) died with ${signal ?? `code ${code}`}`);
    process.exitCode = 1;
    stop();
  }
});

function stop() {
  stopping = true;
  for (const worker of Object.values(cluster.workers)) worker.process.kill('SIGTERM');
}
process.on('SIGTERM', stop);

for (let i = 0; i < count; i++) cluster.fork().process.stderr.pipe(process.stderr);
