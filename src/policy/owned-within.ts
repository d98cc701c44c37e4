/**
 * What a checkOwnership call answered within `timeoutMs`: true only for exactly `true`. Anything
 * else, a rejection, or no answer in time is "not owned", so a check that never settles denies
 * the request instead of leaving it hanging (SPEC 7.5); an answer after the deadline is ignored.
 */
export function ownedWithin(answer: unknown, timeoutMs: number): Promise<boolean> {
  if (!isThenable(answer)) return Promise.resolve(answer === true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    // A pending check must not keep the process alive on its own.
    timer.unref();
    // Both handlers are attached at once, so a late rejection is handled too, never unhandled.
    Promise.resolve(answer).then(
      (value) => settle(value === true),
      () => settle(false),
    );
    function settle(owned: boolean): void {
      clearTimeout(timer);
      resolve(owned);
    }
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
