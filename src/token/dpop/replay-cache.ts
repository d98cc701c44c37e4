/** What remembering an id found: a new id (now remembered), one seen before, or no room. */
export type ReplayCheck = 'fresh' | 'replayed' | 'full';

/**
 * The DPoP proof ids seen while their proofs can still be accepted, bounded in entries. Every id
 * is kept for the same time, measured on the monotonic clock, so insertion order is expiry order
 * and forgetting is a walk from the oldest entry that stops at the first live one.
 *
 * When every entry is live it refuses new ids rather than drop one: a dropped id could be
 * replayed while its proof is still fresh. Only proofs that passed every other check (a valid
 * access token, a signature by the key it is bound to) reach the cache, so filling it takes a
 * caller with valid credentials, and the cache empties itself within one lifetime.
 */
export class ReplayCache {
  private readonly expiries = new Map<string, number>();

  constructor(
    private readonly capacity: number,
    private readonly lifetimeMs: number,
  ) {}

  remember(id: string): ReplayCheck {
    const now = performance.now();
    this.forgetExpired(now);
    if (this.expiries.has(id)) return 'replayed';
    if (this.expiries.size >= this.capacity) return 'full';
    this.expiries.set(id, now + this.lifetimeMs);
    return 'fresh';
  }

  private forgetExpired(now: number): void {
    for (const [id, expiry] of this.expiries) {
      if (expiry > now) return;
      this.expiries.delete(id);
    }
  }
}
