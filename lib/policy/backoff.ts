import type { JitterStrategy } from '../types';

/** Inputs of a backoff computation; every strategy is a pure function of these and `random`. */
export interface BackoffInput {
  /** 0 for the first retry, 1 for the second, … */
  retry: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The previous wait (decorrelated jitter only); the base before the first retry. */
  previousDelayMs?: number;
}

// 2^1023 is the largest finite power of two; past it `base * 2^retry` would be Infinity (or NaN for
// a zero base). The cap is reached long before, so clamping the exponent changes no result.
const MAX_EXPONENT = 1023;

/** `min(cap, base * 2^retry)`: the ceiling every strategy but decorrelated works under. */
export function exponentialCeiling({ retry, baseDelayMs, maxDelayMs }: BackoffInput): number {
  return Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(Math.max(retry, 0), MAX_EXPONENT));
}

/**
 * The wait before a retry under `strategy`, in whole milliseconds, always within `[0, maxDelayMs]`;
 * every strategy but decorrelated works under the ceiling `min(cap, base * 2^retry)`:
 * - `full` (the default): uniform in `[0, ceiling)`;
 * - `equal`: half the ceiling fixed, the other half random;
 * - `decorrelated`: `min(cap, random_between(base, previous * 3))`;
 * - `none`: the ceiling itself (synchronised clients come back together; for comparison).
 */
export function computeBackoff(strategy: JitterStrategy, input: BackoffInput, random: () => number): number {
  if (strategy === 'none') return Math.floor(exponentialCeiling(input));
  // `random` forced into [0, 1): a broken source must not make a NaN or negative wait.
  const r = random();
  const unit = r > 0 ? (r < 1 ? r : 1 - Number.EPSILON) : 0;
  if (strategy === 'decorrelated') {
    const { baseDelayMs, maxDelayMs } = input;
    const previous = input.previousDelayMs ?? baseDelayMs;
    const upper = Math.max(baseDelayMs, Math.min(maxDelayMs, previous * 3));
    return Math.floor(Math.min(maxDelayMs, baseDelayMs + unit * (upper - baseDelayMs)));
  }
  const ceiling = exponentialCeiling(input);
  return Math.floor(strategy === 'full' ? unit * ceiling : ceiling / 2 + (unit * ceiling) / 2);
}
