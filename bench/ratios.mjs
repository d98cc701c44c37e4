// The cost ratio of two servers, shared by run.mjs, peers.mjs and telemetry.mjs.
import { existsSync, readFileSync } from 'node:fs';

// Several ratios sit near their targets, where the median of 5 windows moved by 0.04 between runs.
export const WINDOWS = 9;

/**
 * The two servers loaded at the same time on the same CPU, each by 100 connections of its own:
 * both stay busy, the scheduler shares the CPU between them, and the ratio of the requests they
 * answer is the inverse ratio of their costs per request. A change in the machine's speed hits
 * both at once, so this ratio stays within a few percent where alternating runs of the same
 * scenario moved by 30% on the 2-core machine. Median of WINDOWS windows after a warm-up.
 * `run(name, seconds)` loads one server for that long, from this process. `loadCpu`: the share of
 * a CPU this process (the load generator) used over the windows; near 1, it may have set the pace.
 *
 * The scheduler shares the CPU between threads, not processes: a server that hands work to libuv's
 * threads (jose verifies RSA, EC and Ed25519 signatures with the callback form of crypto.verify)
 * gets more than half of it, and its requests ratio flatters it. With `pidOf(name)` (the server's
 * process id), `perCpu` is also given: the ratio of requests per CPU second, all threads counted,
 * which does not depend on how the CPU was shared; and `busy`, the share of a CPU each server used
 * (median over the windows). Both near one half: both were kept busy. One well below: it waited for
 * requests (the load generator did not keep it busy), and the requests ratio is pulled toward 1.
 */
export async function simultaneousRatio(run, name, twin, { windows = WINDOWS, pidOf: pidOption } = {}) {
  // Without /proc (not Linux) there is no per-process CPU time to read: the requests ratio alone.
  const pidOf = existsSync('/proc/self/stat') ? pidOption : undefined;
  await Promise.all([run(name, 2), run(twin, 2)]);
  const ratios = [];
  const perCpu = [];
  const busy = { guarded: [], twin: [] };
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (let window = 0; window < windows; window++) {
    const before = pidOf && [cpuSeconds(pidOf(name)), cpuSeconds(pidOf(twin))];
    const [guarded, unguarded] = await Promise.all([run(name, 3), run(twin, 3)]);
    ratios.push(guarded.requests.total / unguarded.requests.total);
    if (!pidOf) continue;
    const used = [cpuSeconds(pidOf(name)) - before[0], cpuSeconds(pidOf(twin)) - before[1]];
    perCpu.push(guarded.requests.total / used[0] / (unguarded.requests.total / used[1]));
    busy.guarded.push(used[0] / guarded.duration);
    busy.twin.push(used[1] / unguarded.duration);
  }
  const used = process.cpuUsage(cpu);
  const loadCpu = (used.user + used.system) / 1000 / (performance.now() - t0);
  ratios.sort((a, b) => a - b);
  process.stderr.write(`simultaneous ${name} / ${twin}: ${ratios.map((r) => r.toFixed(3)).join(' ')} (load generator ${Math.round(loadCpu * 100)}% of a CPU)\n`);
  const ratio = { value: median(ratios), low: ratios[0], high: ratios[ratios.length - 1], loadCpu };
  if (!pidOf) return ratio;
  perCpu.sort((a, b) => a - b);
  const shares = { guarded: median(busy.guarded), twin: median(busy.twin) };
  process.stderr.write(`  per CPU second: ${perCpu.map((r) => r.toFixed(3)).join(' ')} (CPU share ${shares.guarded.toFixed(2)} / ${shares.twin.toFixed(2)})\n`);
  return { ...ratio, perCpu: { value: median(perCpu), low: perCpu[0], high: perCpu[perCpu.length - 1] }, busy: shares };
}

/**
 * The ratio of `name` to `twin` measured with each loaded first: two identical servers loaded
 * together answered 1.035 to 1 in favour of one of them, a bias as large as some costs measured.
 * The geometric mean of the two orders cancels it; `first` and `second` are each order's median
 * (name to twin), and so for `perCpu` when `options.pidOf` gives it.
 */
export async function bothOrders(run, name, twin, options) {
  const first = await simultaneousRatio(run, name, twin, options);
  const second = await simultaneousRatio(run, twin, name, options);
  const mean = (a, b) => ({ value: Math.sqrt(a.value / b.value), first: a.value, second: 1 / b.value });
  return { ...mean(first, second), ...(first.perCpu && second.perCpu ? { perCpu: mean(first.perCpu, second.perCpu) } : {}) };
}

/** User and system CPU seconds of a process so far, all its threads (Linux /proc; clock ticks of 1/100 s). */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
