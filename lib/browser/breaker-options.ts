/**
 * The browser build's `policy/breaker-options.ts`: no breaker by default (a page's calls are few and
 * its users retry by hand; the retry budget bounds a storm). `breaker` is resolved by the breaker code
 * it carries (`breaker()` from `axios-resilience/breaker`), which stays on the resolved setting for
 * `browser/breaker-registry.ts`; a plain object is a `TypeError` that names the import.
 */
import type * as BreakerGate from '../engine/breaker-gate';
import type * as Breakers from '../guards/breaker';
import type { ResolvedBreakerOptions } from '../policy/breaker-options';
import { resolveCarried } from './capability';

export type { ResolvedBreakerOptions };

/** What `axios-resilience/breaker` attaches: the real resolution, the registry and a call's gate. */
export interface BreakerCapability {
  resolve(value: unknown): false | ResolvedBreakerOptions;
  Registry: typeof Breakers.BreakerRegistry;
  Gate: typeof BreakerGate.BreakerGate;
}

export function resolveBreaker(value: unknown): false | ResolvedBreakerOptions {
  return resolveCarried(value, 'breaker', 'breaker', 'axios-resilience/breaker');
}
