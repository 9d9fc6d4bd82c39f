/**
 * The browser build's `engine/breaker-gate.ts`: a call of a plugin with a breaker (`breaker()` from
 * `axios-resilience/breaker`) goes through the gate its registry's capability carries; a call of a
 * plugin without passes a gate that lets everything out and counts nothing.
 */
import type { BreakerGate as Gate } from '../engine/breaker-gate';
import type { BreakerRegistry } from '../guards/breaker';
import { capabilityOf } from './capability';
import type { BreakerCapability } from './breaker-options';

const OPEN_ROAD = {
  pass: (work: () => unknown) => work(),
  refusing: false,
  closed: true,
  enter: () => true,
  left() {},
  succeeded() {},
  attemptFailed() {},
  failed() {},
} as unknown as Gate;

/** `new BreakerGate(...)` as the engine writes it (a constructor may return another object). */
export const BreakerGate = function BreakerGate(...args: ConstructorParameters<typeof Gate>) {
  const code = capabilityOf<BreakerCapability>(args[1] as BreakerRegistry | undefined);
  return code === undefined ? OPEN_ROAD : new code.Gate(...args);
} as unknown as typeof Gate;
