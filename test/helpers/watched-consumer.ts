import { bundleConsumer, type BundleConsumer, type BundleConsumerOptions, type BundleEvent } from '../../src/fleet';

/** Polls fast, so that a test sees several polls in well under a second. */
export const FAST_POLLING = { minDelaySeconds: 0.05, maxDelaySeconds: 0.1 };

export type EventWaiter = <T extends BundleEvent['type']>(type: T) => Promise<Extract<BundleEvent, { type: T }>>;

export interface WatchedConsumer {
  policy: BundleConsumer;
  /** Every onUpdate event, in order. */
  events: BundleEvent[];
  /** The next event of that type from now on. */
  next: EventWaiter;
  /** The next event of any of these types (a test then fails fast on the wrong one rather than waiting). */
  nextOf: (...types: BundleEvent['type'][]) => Promise<BundleEvent>;
}

/** A bundleConsumer whose onUpdate events a test reads and waits for; `opened` collects it for closing. */
export function watchedConsumer(options: BundleConsumerOptions, opened: BundleConsumer[]): WatchedConsumer {
  const events: BundleEvent[] = [];
  const waiting: { type: BundleEvent['type']; resolve: (event: BundleEvent) => void }[] = [];
  const policy = bundleConsumer({
    polling: FAST_POLLING,
    ...options,
    onUpdate: (event) => {
      events.push(event);
      for (const waiter of waiting.filter((candidate) => candidate.type === event.type)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    },
  });
  opened.push(policy);
  const nextOf = (...types: BundleEvent['type'][]) =>
    new Promise<BundleEvent>((resolve) => {
      const waiters = types.map((type) => ({ type, resolve: (event: BundleEvent) => settle(event) }));
      const settle = (event: BundleEvent) => {
        for (const waiter of waiters) if (waiting.includes(waiter)) waiting.splice(waiting.indexOf(waiter), 1);
        resolve(event);
      };
      waiting.push(...waiters);
    });
  const next = ((type: BundleEvent['type']) => nextOf(type)) as EventWaiter;
  return { policy, events, next, nextOf };
}
