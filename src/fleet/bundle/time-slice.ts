import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Long work split into slices: `pause()` yields to the event loop once `budgetMs` of work has run
 * since the last yield, so that requests are served while a large bundle is checked.
 */
export class TimeSlice {
  private started = performance.now();

  constructor(private readonly budgetMs = 10) {}

  async pause(): Promise<void> {
    if (performance.now() - this.started < this.budgetMs) return;
    await nextTurn();
    this.started = performance.now();
  }
}
