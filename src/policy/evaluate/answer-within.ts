/**
 * A user callback's answer (awaited when it is a promise or a thenable, whatever library made
 * it), or what `timedOut` gives once `timeoutMs` have passed without one (a throw there rejects).
 * A callback that never settles must not leave a request hanging (SPEC 7.5); an answer after the
 * deadline is ignored.
 */
export function settleWithin(answer: unknown, timeoutMs: number, timedOut: () => unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        resolve(timedOut());
      } catch (error) {
        reject(error);
      }
    }, timeoutMs);
    // A pending callback must not keep the process alive on its own.
    timer.unref();
    // Both handlers are attached at once, so a late rejection is handled too, never unhandled.
    Promise.resolve(answer).then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** What a user callback answered within `timeoutMs`: its value, or undefined when it rejected or did not answer in time. */
export function answerWithin(answer: unknown, timeoutMs: number): Promise<unknown> {
  if (!isThenable(answer)) return Promise.resolve(answer);
  return settleWithin(answer, timeoutMs, () => undefined).catch(() => undefined);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
