/**
 * The browser build's `policy/rate-limit-options.ts`: no cross-call rate limiter by default (each
 * refused call still waits what its server asks, `engine/pushback.ts`). `rateLimit` is resolved by
 * the limiter code it carries (`rateLimiting()` from `axios-resilience/rate-limiting`), which stays
 * on the resolved setting for `browser/rate-gate.ts`; a plain object is a `TypeError` that names
 * the import.
 */
import type * as RateGate from '../engine/rate-gate';
import type { ResolvedRateLimit } from '../policy/rate-limit-options';
import { resolveCarried } from './capability';

export type { ResolvedRateLimit };

/** What `axios-resilience/rate-limiting` attaches: the real resolution and the limiters' gate. */
export interface RateLimitCapability {
  resolve(value: unknown): false | ResolvedRateLimit;
  gate: typeof RateGate;
}

export function resolveRateLimit(value: unknown): false | ResolvedRateLimit {
  return resolveCarried(value, 'rateLimit', 'rateLimiting', 'axios-resilience/rate-limiting');
}
