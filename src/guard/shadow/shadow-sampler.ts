/** Why a decided request was not given to the candidate. */
export type SampleSkip = 'sampling' | 'rate';

/**
 * Which decided requests the candidate decides too: a share of them (`sampleRate`), and at most
 * `maxPerSecond` in each second of the monotonic clock.
 */
export class ShadowSampler {
  private second = -1;
  private taken = 0;

  constructor(
    private readonly sampleRate: number,
    private readonly maxPerSecond: number | undefined,
  ) {}

  /** Undefined when this request is sampled; else why not. */
  take(): SampleSkip | undefined {
    if (this.sampleRate < 1 && Math.random() >= this.sampleRate) return 'sampling';
    if (this.maxPerSecond === undefined) return undefined;
    const second = Math.floor(performance.now() / 1000);
    if (second !== this.second) {
      this.second = second;
      this.taken = 0;
    }
    if (this.taken >= this.maxPerSecond) return 'rate';
    this.taken += 1;
    return undefined;
  }
}
