/**
 * The uploader's buffer: oldest first, bounded, each step O(1) amortised. While the collector is
 * down the buffer stays full and every guarded request drops its oldest event on the request's
 * own turn; an array sliced (or shifted, past V8's in-place trimming) for that copied the whole
 * buffer each time: 33 us a request at the default 10,000 events, 21 ms at 1,000,000.
 */
export class EventQueue {
  private items: object[] = [];
  /** Index of the oldest event in `items`; the ones before it were taken or dropped. */
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(event: object): void {
    this.items.push(event);
  }

  /** Takes the oldest event, or undefined when empty. */
  shift(): object | undefined {
    if (this.head === this.items.length) return undefined;
    const event = this.items[this.head]!;
    this.advance(1);
    return event;
  }

  /** Drops the oldest events past `limit`; how many were dropped. */
  trimTo(limit: number): number {
    const over = this.length - limit;
    if (over <= 0) return 0;
    this.advance(over);
    return over;
  }

  /** Puts events back in front, oldest first (an upload that failed). */
  unshiftAll(events: readonly object[]): void {
    this.items = [...events, ...this.items.slice(this.head)];
    this.head = 0;
  }

  /** The slots before `head` are let go once they are half the array: each event is copied O(1) times. */
  private advance(count: number): void {
    this.head += count;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > this.items.length / 2) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
