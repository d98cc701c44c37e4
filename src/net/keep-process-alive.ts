/** Promises awaited through keepProcessAliveUntil that have not settled yet. */
let pending = 0;
/** The one referenced handle held while any of them is pending. */
let hold: NodeJS.Timeout | undefined;

/**
 * Keeps the process alive until `promise` settles, and returns the same promise. Outbound
 * exchanges unref their sockets and timers, so that a background poll never holds a process that
 * wants to exit; but a caller awaiting a result (`await consumer.ready()` at the top of an ES
 * module) holds nothing else, and the process would exit under it with nothing said.
 *
 * One handle serves every pending promise, counted: a caller that asks ready() on each request
 * during an outage adds a count, not a timer (a thousand pending calls held a thousand timers).
 */
export function keepProcessAliveUntil<T>(promise: Promise<T>): Promise<T> {
  pending += 1;
  // A referenced timer that never fires is the cheapest handle that holds the event loop.
  hold ??= setInterval(() => undefined, 2 ** 31 - 1);
  const release = () => {
    pending -= 1;
    if (pending === 0) {
      clearInterval(hold);
      hold = undefined;
    }
  };
  promise.then(release, release);
  return promise;
}
