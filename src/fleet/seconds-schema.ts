import { z } from 'zod';

/** Node's timers hold at most 2^31 - 1 ms. */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** An option in seconds that sets a timer: positive, and short enough for one. */
export function secondsSchema(name: string) {
  return z
    .number({ error: `${name} must be a number of seconds` })
    .positive({ error: `${name} must be positive` })
    .max(MAX_TIMER_SECONDS, { error: `${name} must be at most ${MAX_TIMER_SECONDS} seconds` });
}
