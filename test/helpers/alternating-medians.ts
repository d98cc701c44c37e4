/**
 * Median milliseconds of each of two requests, sent in turn so that machine load hits both alike;
 * the first round only warms up the connection and the code paths. Tests compare the two as a
 * ratio, never against a wall-clock threshold.
 */
export async function alternatingMedians(first: () => Promise<unknown>, second: () => Promise<unknown>, runs: number): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  for (let run = 0; run <= runs; run++) {
    for (const [index, send] of [first, second].entries()) {
      const start = performance.now();
      await send();
      if (run > 0) times[index as 0 | 1].push(performance.now() - start);
    }
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return [median(times[0]), median(times[1])];
}
