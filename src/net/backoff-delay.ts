/**
 * The wait before the next attempt after `failures` failures in a row: `baseSeconds` doubled with
 * each, at most `maxSeconds`, then jittered to between half and all of it, so that replicas cut
 * off together do not come back in step.
 */
export function backoffSeconds(baseSeconds: number, failures: number, maxSeconds: number): number {
  return Math.min(maxSeconds, baseSeconds * 2 ** Math.min(failures, 30)) * (0.5 + Math.random() / 2);
}
