/**
 * The browser build's `policy/breaker-options.ts`, `guards/breaker.ts` and `engine/breaker-gate.ts`:
 * no breaker by default (a page's calls are few and its users retry by hand; the retry budget bounds
 * a storm). `breaker` is resolved by the breaker code it carries (`breaker()` from
 * `axios-resilience/breaker`), which stays on the resolved setting; a plain object is a `TypeError`
 * that names the import. A plugin given it gets that code's registry, marked with it so a call's
 * gate is that code's too; a plugin without has no registry, and its calls pass a gate that lets
 * everything out and counts nothing.
 */
import type * as Gates from '../engine/breaker-gate';
import type * as Breakers from '../guards/breaker';
import type * as Options from '../policy/breaker-options';
import type { ResolvedBreakerOptions } from '../policy/breaker-options';
import { CAPABILITY, capabilityOf, resolveCarried } from './capability';

export type { ResolvedBreakerOptions };

// What the real breaker-gate imports from guards/breaker (the capability's code reaches this file for it).
export { countFailure, Guard } from '../guards/breaker-guard';

/** What `axios-resilience/breaker` attaches: the real resolution, the registry and a call's gate. */
export interface BreakerCapability {
  resolve: typeof Options.resolveBreaker;
  Registry: typeof Breakers.BreakerRegistry;
  Gate: typeof Gates.BreakerGate;
}

export const resolveBreaker: typeof Options.resolveBreaker = (value) =>
  resolveCarried(value, 'breaker', 'breaker', 'axios-resilience/breaker');

/** `new BreakerRegistry(...)` as the plugin writes it: the capability's registry (a constructor may return another object). */
export const BreakerRegistry = function BreakerRegistry(
  ...args: ConstructorParameters<typeof Breakers.BreakerRegistry>
) {
  const code = capabilityOf<BreakerCapability>(args[0])!;
  return Object.defineProperty(new code.Registry(...args), CAPABILITY, { value: code });
} as unknown as BreakerCapability['Registry'];

const OPEN_ROAD = {
  pass: (work: () => unknown) => work(),
  refusing: false,
  closed: true,
  enter: () => true,
  left() {},
  succeeded() {},
  attemptFailed() {},
  failed() {},
} as unknown as Gates.BreakerGate;

/** `new BreakerGate(...)` as the engine writes it (a constructor may return another object). */
export const BreakerGate = function BreakerGate(...args: ConstructorParameters<typeof Gates.BreakerGate>) {
  const code = capabilityOf<BreakerCapability>(args[1]);
  return code === undefined ? OPEN_ROAD : new code.Gate(...args);
} as unknown as typeof Gates.BreakerGate;
