/**
 * `axios-resilience/breaker` in a browser build: `breaker(options)` returns the `breaker` options
 * with the circuit breaker's code attached (the light circuit, `guards/lite-circuit.ts`, in place of
 * opossum), so only the app that wants a breaker ships it.
 * @module axios-resilience/breaker
 */
import { BreakerGate } from '../engine/breaker-gate';
import { BreakerRegistry } from '../guards/breaker';
import { resolveBreaker } from '../policy/breaker-options';
import type { BreakerOptions } from '../types';
import { withCapability } from './capability';
import type { BreakerCapability } from './breaker-gate';

const code: BreakerCapability = { resolve: resolveBreaker, Registry: BreakerRegistry, Gate: BreakerGate };

export function breaker(options: BreakerOptions = {}): BreakerOptions {
  return withCapability(options, code);
}
