/**
 * `axios-resilience/chaos` in a browser build: `chaos(options)` returns the `chaos` options with the
 * fault injection code attached, so only the app that injects faults ships it.
 * @module axios-resilience/chaos
 */
import { withChaos } from '../engine/chaos';
import { resolveChaos } from '../policy/chaos-options';
import type { ChaosOptions } from '../types';
import { withCapability } from './capability';
import type { ChaosCapability } from './chaos';

const code: ChaosCapability = {
  resolve: resolveChaos,
  withChaos,
};

export function chaos(options: ChaosOptions): ChaosOptions {
  return withCapability(options, code);
}
