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

/** A random number forced into [0, 1): a broken source must not make a NaN or negative wait. */
function unit(random: () => number): number {
  const r = random();
  return r > 0 ? (r < 1 ? r : 1 - Number.EPSILON) : 0;
}

/** `min(cap, base * 2^retry)`: the ceiling every strategy but decorrelated works under. */
export function exponentialCeiling({ retry, baseDelayMs, maxDelayMs }: BackoffInput): number {
  return Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(Math.max(retry, 0), MAX_EXPONENT));
}

/** Full jitter: uniform in `[0, min(cap, base * 2^retry))`. The default. */
export function fullJitter(input: BackoffInput, random: () => number): number {
  return Math.floor(unit(random) * exponentialCeiling(input));
}

/** Equal jitter: half the exponential ceiling fixed, the other half random. */
export function equalJitter(input: BackoffInput, random: () => number): number {
  const half = exponentialCeiling(input) / 2;
  return Math.floor(half + unit(random) * half);
}

/** Decorrelated jitter: `min(cap, random_between(base, previous * 3))`. */
export function decorrelatedJitter(input: BackoffInput, random: () => number): number {
  const { baseDelayMs, maxDelayMs } = input;
  const previous = input.previousDelayMs ?? baseDelayMs;
  const upper = Math.max(baseDelayMs, Math.min(maxDelayMs, previous * 3));
  return Math.floor(Math.min(maxDelayMs, baseDelayMs + unit(random) * (upper - baseDelayMs)));
}

/** No jitter: `min(cap, base * 2^retry)`. Synchronised clients come back together; for comparison. */
export function noJitter(input: BackoffInput): number {
  return Math.floor(exponentialCeiling(input));
}

/** The wait before a retry under `strategy`, in whole milliseconds, always within `[0, maxDelayMs]`. */
export function computeBackoff(strategy: JitterStrategy, input: BackoffInput, random: () => number): number {
  switch (strategy) {
    case 'full':
      return fullJitter(input, random);
    case 'equal':
      return equalJitter(input, random);
    case 'decorrelated':
      return decorrelatedJitter(input, random);
    case 'none':
      return noJitter(input);
  }
}
