/**
 * What a user callback answered within `timeoutMs`: its value (awaited when it is a promise or a
 * thenable), or undefined when it rejected or did not answer in time. A callback that never
 * settles must not leave a request hanging (SPEC 7.5); an answer after the deadline is ignored.
 */
export function answerWithin(answer: unknown, timeoutMs: number): Promise<unknown> {
  if (!isThenable(answer)) return Promise.resolve(answer);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), timeoutMs);
    // A pending callback must not keep the process alive on its own.
    timer.unref();
    // Both handlers are attached at once, so a late rejection is handled too, never unhandled.
    Promise.resolve(answer).then(
      (value) => settle(value),
      () => settle(undefined),
    );
    function settle(value: unknown): void {
      clearTimeout(timer);
      resolve(value);
    }
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
