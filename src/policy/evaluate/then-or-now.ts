/**
 * `next` of a value that may still be coming: at once when it is at hand, so that the common
 * request costs no turn of the event loop, once it settles when it is a promise (and `failed`,
 * when given, on a rejection). Errors `next` throws at once are thrown, not turned into rejections.
 */
export function thenOrNow<T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>, failed?: (error: unknown) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next, failed) : next(value);
}
