/**
 * What the rate rule (`rate-rule.ts`) works on: its state, and its tuning numbers, named once. The
 * process's rule reads them; the fleet's Lua script (`redis/rate-rule-script.ts`) keeps the state as a
 * Redis hash and receives the numbers as arguments, in this order.
 */
export const RATE_RULE = {
  /** One growth step, and one bucket of counted successes (ms). */
  stepMs: 100,
  /** Buckets in the measuring window (a second). */
  windowSteps: 10,
  /** In slow start the rate grew through the second: its last steps say what the server grants. */
  recentSteps: 3,
  /** The rate a limiter starts from when nothing is known, per second. */
  seedRate: 20,
  /** The lowest rate, per second: one call a second keeps probing the server. */
  minRate: 1,
  /** The share of the measured capacity a cut goes down to. */
  beta: 0.95,
  /**
   * A capacity measured under this share of the rate that drew the throttle is not believed: slow
   * start passes the limit by at most a few doublings before it hears, so fewer successes mean the
   * window told too little (answers not back yet, a window mostly held), not that the server grants
   * almost nothing. The last estimate stands, or before one the rate halves and slow start goes on.
   */
  leastBelieved: 0.125,
  /** The share of the capacity growth closes on before probing past it. */
  targetShare: 0.98,
  /** How much of the gap to the target one step closes, plus a floor per step (per second). */
  closeShare: 0.3,
  closeFloor: 0.5,
  /** Growth per step past the target, times the steps probed since the last cut. */
  probe: 0.005,
  /** Growth per step past the cut against a server that pauses callers: 0.2 % a second. */
  gentleProbe: 0.0002,
  /** A pause at least this long empties the measuring window, and makes probing gentle. */
  longPauseMs: 200,
  /**
   * For this long after a fleet engaged (before its first cut), each other process's first throttle
   * adds the rate it saw its scope served at: the fleet was served the sum of their shares.
   */
  joinMs: 500,
  /** Quiet time after which an engaged limiter switches off. */
  relaxMs: 5000,
  /** The share of a stated policy's rate paced at: a little under it, so the quota is not spent. */
  policyShare: 0.97,
  /** At most this many missed steps are caught up at once (a limiter idle for long grows no more). */
  maxCatchUpSteps: 50,
  /** Rates compared within this (the fleet's hash keeps numbers as text). */
  epsilon: 1e-6,
  /**
   * Throttles without a hint (no wait, no quota, no policy) since the last cut, up to this share of
   * the window's answers, cut nothing. Refusals that do not depend on the rate stay under it (1 %
   * refused at random); a limit passed by the probe soon passes it, at a refusal or two more per
   * probe.
   */
  noise: 0.02,
} as const;

/** An engaged limiter's state. Times are the holder's clock (ms); the fleet's is Redis's `TIME`. */
export interface RateState {
  ratePerSecond: number;
  /** The next free send time (a GCRA's theoretical arrival time). */
  nextAt: number;
  /** No send time before this: a server's pause. */
  pausedUntil: number;
  /** The end of the last long pause: measuring and probing start after it. */
  pauseEndsAt: number;
  lastCutAt: number;
  /** The successes per second the server granted when it last throttled (`undefined` before a cut). */
  capacity: number | undefined;
  /** A ceiling a server's policy stated (per second; `Infinity`: none). */
  ceiling: number;
  /** Growth has been counted up to here. */
  stepAt: number;
  /** Steps probed past the target since the last cut: each probes a little further. */
  probeSteps: number;
  gentle: boolean;
  engagedAt: number;
  /** Successes counted per step, oldest first; the last is step `lastStep` (`floor(t / stepMs)`). */
  successes: number[];
  /** Throttles counted per step since the last cut, as `successes`. */
  refusals: number[];
  lastStep: number;
}
