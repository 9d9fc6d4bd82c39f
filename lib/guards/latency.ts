/**
 * Per-origin latency samples, kept for adaptive hedge delays (`hedge: { delayMs: 'p95' }`). State
 * shared between calls, so it sits with the other per-origin guards; the hedging rules that read
 * it are in `engine/hedge.ts`.
 */

/** Samples kept per origin; percentiles are recomputed after every `RESORT_EVERY` new samples. */
const SAMPLES = 256;
const RESORT_EVERY = 16;
/** Samples needed before an adaptive delay trusts them. */
const MIN_SAMPLES = 20;

/** Recent latencies of successful attempts to one origin, for an adaptive hedge delay. */
export class LatencyWindow {
  private readonly ring = new Float64Array(SAMPLES);
  private count = 0;
  private sorted: Float64Array | undefined;
  private sinceSort = 0;

  record(ms: number): void {
    this.ring[this.count % SAMPLES] = ms;
    this.count += 1;
    this.sinceSort += 1;
  }

  /** The `p` quantile (0.95 for p95) of the kept samples, or `undefined` while there are too few. */
  quantile(p: number): number | undefined {
    const size = Math.min(this.count, SAMPLES);
    if (size < MIN_SAMPLES) return undefined;
    if (this.sorted === undefined || this.sinceSort >= RESORT_EVERY) {
      this.sorted = this.ring.slice(0, size).sort();
      this.sinceSort = 0;
    }
    return this.sorted[Math.min(size - 1, Math.ceil(p * size) - 1)];
  }
}
