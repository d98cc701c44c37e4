// The cost ratio of two servers, shared by run.mjs and telemetry.mjs.

// Several ratios sit near their targets, where the median of 5 windows moved by 0.04 between runs.
export const WINDOWS = 9;

/**
 * The two servers loaded at the same time on the same CPU, each by 100 connections of its own:
 * both stay busy, the scheduler shares the CPU between them, and the ratio of the requests they
 * answer is the inverse ratio of their costs per request. A change in the machine's speed hits
 * both at once, so this ratio stays within a few percent where alternating runs of the same
 * scenario moved by 30% on the 2-core machine. Median of WINDOWS windows after a warm-up.
 * `run(name, seconds)` loads one server for that long.
 */
export async function simultaneousRatio(run, name, twin) {
  await Promise.all([run(name, 2), run(twin, 2)]);
  const ratios = [];
  for (let window = 0; window < WINDOWS; window++) {
    const [guarded, unguarded] = await Promise.all([run(name, 3), run(twin, 3)]);
    ratios.push(guarded.requests.total / unguarded.requests.total);
  }
  ratios.sort((a, b) => a - b);
  process.stderr.write(`simultaneous ${name} / ${twin}: ${ratios.map((r) => r.toFixed(3)).join(' ')}\n`);
  return { value: median(ratios), low: ratios[0], high: ratios[ratios.length - 1] };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
