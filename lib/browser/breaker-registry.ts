/**
 * The browser build's `guards/breaker.ts`: a plugin given `breaker()` gets the registry that
 * capability carries (`browser/breaker-options.ts`), marked with it so `browser/breaker-gate.ts`
 * finds the gate's code; a plugin without has no registry at all (`resolveBreaker` gave `false`).
 */
import type { CircuitStateChange } from '../types';
import type { ResolvedBreakerOptions } from '../policy/breaker-options';
import { CAPABILITY, capabilityOf } from './capability';
import type { BreakerCapability } from './breaker-options';

// What the real breaker-gate imports from here (the capability's code reaches this file for it).
export { countFailure, Guard } from '../guards/breaker-guard';

/** `new BreakerRegistry(...)` as the plugin writes it: the capability's registry (a constructor may return another object). */
export const BreakerRegistry = function BreakerRegistry(
  options: ResolvedBreakerOptions,
  onStateChange: ((change: CircuitStateChange) => void) | undefined,
  random: () => number,
) {
  const code = capabilityOf<BreakerCapability>(options)!;
  return Object.defineProperty(new code.Registry(options, onStateChange, random), CAPABILITY, { value: code });
} as unknown as BreakerCapability['Registry'];
