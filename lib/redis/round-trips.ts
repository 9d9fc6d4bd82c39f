/**
 * How long the fleet's store takes to answer: the longest of the last `SAMPLES` round trips (a
 * jittery store is given room, and one slow answer, such as a `NOSCRIPT` that costs a second trip,
 * is soon forgotten), at most `MAX_MS`. A process keeps that long's worth of requests in flight
 * (`SharedPacing`), and the store lets a throttle that long after a cut count as one of its burst:
 * send times granted before the cut still reach the server that much later.
 */

/** The longest round trip taken into account (ms). */
export const MAX_MS = 1000;

/** Round trips remembered. */
const SAMPLES = 8;

export class RoundTrips {
  private readonly recent: number[] = [];

  add(ms: number): void {
    if (!(ms >= 0)) return;
    this.recent.push(ms);
    if (this.recent.length > SAMPLES) this.recent.shift();
  }

  /** The round trip to reckon with (ms; 0 before any answer). */
  longest(): number {
    return Math.min(MAX_MS, Math.max(0, ...this.recent));
  }
}
