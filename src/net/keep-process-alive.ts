/**
 * Keeps the process alive until `promise` settles, and returns the same promise. Outbound
 * exchanges unref their sockets and timers, so that a background poll never holds a process that
 * wants to exit; but a caller awaiting a result (`await consumer.ready()` at the top of an ES
 * module) holds nothing else, and the process would exit under it with nothing said.
 */
export function keepProcessAliveUntil<T>(promise: Promise<T>): Promise<T> {
  // A referenced timer that never fires is the cheapest handle that holds the event loop.
  const hold = setInterval(() => undefined, 2 ** 31 - 1);
  const release = () => clearInterval(hold);
  promise.then(release, release);
  return promise;
}
