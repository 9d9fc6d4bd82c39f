/**
 * `axios-resilience/breaker`. In Node the main entry has a breaker per origin on by default (opossum)
 * and `breaker(options)` returns `options` as they are (`{}` without any); in a browser build (the
 * package's `browser` export condition), whose plugin has no breaker by default, it attaches the
 * breaker's code (a light circuit with opossum's semantics) to them. Either way:
 * `retryPlugin({ breaker: breaker({ volumeThreshold: 5 }) })`.
 * @module axios-resilience/breaker
 */
import type { BreakerOptions } from '../types';

/**
 * The `breaker` option, carrying the circuit breaker's code where the build needs it (a browser build).
 * @param options as for `breaker` (`errorThresholdPercentage`, `volumeThreshold`, `resetTimeout`, `key`, ...)
 */
export function breaker(options: BreakerOptions = {}): BreakerOptions {
  return options;
}
