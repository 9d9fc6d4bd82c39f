/**
 * `axios-resilience/hedging`. In Node the main entry hedges by itself and `hedging(options)` returns
 * `options` as they are; in a browser build (the package's `browser` export condition) it attaches
 * the hedging code, which the browser entry does not carry, to them. Either way:
 * `retryPlugin({ hedge: hedging({ delayMs: 'p95' }) })`.
 * @module axios-resilience/hedging
 */
import type { HedgeOptions } from '../types';

/**
 * The `hedge` option, carrying the hedging code where the build needs it (a browser build).
 * @param options as for `hedge` (`delayMs`, `maxHedges`, `minDelayMs`, `fallbackDelayMs`)
 */
export function hedging(options: HedgeOptions): HedgeOptions {
  return options;
}
