/**
 * The browser build's `policy/rate-limit-options.ts` and `engine/rate-gate.ts`: no cross-call rate
 * limiter by default (each refused call still waits what its server asks, `engine/plan.ts#pushbackOf`).
 * `rateLimit` is resolved by the limiter code it carries (`rateLimiting()` from
 * `axios-resilience/rate-limiting`), which stays on the resolved setting and makes the plugin's
 * limiters, which then run every step of the gate; a plain object is a `TypeError` that names the
 * import. A plugin without has no limiters, and each answer tells only its own call what to wait.
 */
import type { CallRun } from '../engine/call-run';
import { pushbackOf } from '../engine/plan';
import type * as RateGate from '../engine/rate-gate';
import type * as Options from '../policy/rate-limit-options';
import type { ResolvedRateLimit } from '../policy/rate-limit-options';
import { CAPABILITY, capabilityOf, resolveCarried } from './capability';

export type { ResolvedRateLimit };

/** What `axios-resilience/rate-limiting` attaches: the real resolution and the limiters' gate. */
export interface RateLimitCapability {
  resolve: typeof Options.resolveRateLimit;
  gate: typeof RateGate;
}

export const resolveRateLimit: typeof Options.resolveRateLimit = (value) =>
  resolveCarried(value, 'rateLimit', 'rateLimiting', 'axios-resilience/rate-limiting');

/** The gate of the plugin's limiters, when it has them. */
const gateOf = (run: CallRun): typeof RateGate | undefined =>
  capabilityOf<RateLimitCapability>(run.shared.limiters)?.gate;

/** The limiters, carrying their code so the steps below find it (one capability per plugin, nothing global). */
export const limitersFor: typeof RateGate.limitersFor = (setting, ...rest) => {
  if (setting === false) return undefined;
  const code = capabilityOf<RateLimitCapability>(setting)!;
  return Object.defineProperty(code.gate.limitersFor(setting, ...rest)!, CAPABILITY, { value: code });
};

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
