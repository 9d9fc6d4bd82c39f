/**
 * The browser build's `policy/rate-limit-options.ts` and `engine/rate-gate.ts`: no cross-call rate
 * limiter by default (each refused call still waits what its server asks, `engine/pushback.ts`).
 * `rateLimit` is resolved by the limiter code it carries (`rateLimiting()` from
 * `axios-resilience/rate-limiting`), which stays on the resolved setting and makes the plugin's
 * limiters, which then run every step of the gate; a plain object is a `TypeError` that names the
 * import. A plugin without has no limiters, and each answer tells only its own call what to wait.
 */
import type { CallRun } from '../engine/call-run';
import type { Shared } from '../engine/context';
import { pushbackOf } from '../engine/pushback';
import type * as RateGate from '../engine/rate-gate';
import type { ResolvedRateLimit } from '../policy/rate-limit-options';
import type { RateLimitEvent } from '../types';
import { CAPABILITY, capabilityOf, resolveCarried } from './capability';

export type { ResolvedRateLimit };

/** What `axios-resilience/rate-limiting` attaches: the real resolution and the limiters' gate. */
export interface RateLimitCapability {
  resolve(value: unknown): false | ResolvedRateLimit;
  gate: typeof RateGate;
}

export function resolveRateLimit(value: unknown): false | ResolvedRateLimit {
  return resolveCarried(value, 'rateLimit', 'rateLimiting', 'axios-resilience/rate-limiting');
}

/** The gate of the plugin's limiters, when it has them. */
const gateOf = (run: CallRun): typeof RateGate | undefined =>
  capabilityOf<RateLimitCapability>(run.shared.limiters)?.gate;

/** The limiters, carrying their code so the steps below find it (one capability per plugin, nothing global). */
export function limitersFor(
  setting: false | ResolvedRateLimit,
  now: () => number,
  onRateLimit: (event: RateLimitEvent) => void,
): Shared['limiters'] {
  if (setting === false) return undefined;
  const code = capabilityOf<RateLimitCapability>(setting)!;
  const limiters = code.gate.limitersFor(setting, now, onRateLimit)!;
  return Object.defineProperty(limiters, CAPABILITY, { value: code });
}

export const observe: typeof RateGate.observe = (run, answer) => {
  const gate = gateOf(run);
  if (gate === undefined) run.pushback = pushbackOf(run, answer);
  else gate.observe(run, answer);
};

// The other steps do nothing without limiters.
export const activeLimiter: typeof RateGate.activeLimiter = (run) => gateOf(run)?.activeLimiter(run);
export const noteSuccess: typeof RateGate.noteSuccess = (...args) => gateOf(args[0])?.noteSuccess(...args);
export const gateWait: typeof RateGate.gateWait = (...args) => gateOf(args[0])?.gateWait(...args);
export const takeTurn: typeof RateGate.takeTurn = (run) => gateOf(run)?.takeTurn(run);
