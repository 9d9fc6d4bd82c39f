/**
 * The store's clock minus this process's, from the store's replies, placing each reply's `now` at
 * its arrival: send times granted "from now" then start when they reach the process, not in the
 * past by the answer's last leg (spent at once, they would be a burst). A slow store shifts the
 * process's send times by that leg, the same for all of them, so their spacing stays. The median
 * of the last `SAMPLES` replies is taken: one late answer moves nothing, and clocks that drift
 * apart are followed.
 */
const SAMPLES = 9;

export class ClockOffset {
  private readonly recent: number[] = [];

  /** A reply saying `storeNow`, arriving at `answeredAt` (local ms); the offset to use. */
  sample(storeNow: number, answeredAt: number): number {
    this.recent.push(storeNow - answeredAt);
    if (this.recent.length > SAMPLES) this.recent.shift();
    const sorted = [...this.recent].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  }
}
