/**
 * `axios-resilience/chaos`. In Node the main entry injects faults by itself and `chaos(options)`
 * returns `options` as they are; in a browser build (the package's `browser` export condition) it
 * attaches the fault injection code, which the browser entry does not carry, to them. Either way:
 * `retryPlugin({ chaos: chaos({ faults: [{ rate: 0.1, status: 503 }] }) })`.
 * @module axios-resilience/chaos
 */
import type { ChaosOptions } from '../types';

/**
 * The `chaos` option, carrying the fault injection code where the build needs it (a browser build).
 * @param options as for `chaos` (`faults`, `seed`, `enabled`)
 */
export function chaos(options: ChaosOptions): ChaosOptions {
  return options;
}
