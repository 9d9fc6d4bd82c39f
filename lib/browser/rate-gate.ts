/**
 * The browser build's `engine/rate-gate.ts`: a plugin given `rateLimiting()` has limiters made by
 * the code that capability carries (`browser/rate-limit-options.ts`), which then run every step of
 * the gate; a plugin without has none, and each answer tells only its own call what to wait.
 */
import type { AxiosResponse } from 'axios';
import type { CallRun } from '../engine/call-run';
import type { Shared } from '../engine/context';
import { pushbackOf } from '../engine/plan';
import type * as RateGate from '../engine/rate-gate';
import type { Answer } from '../policy/answer';
import type { ResolvedRateLimit } from '../policy/rate-limit-options';
import type { RateLimitEvent } from '../types';
import { CAPABILITY, capabilityOf } from './capability';
import type { RateLimitCapability } from './rate-limit-options';

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

export function activeLimiter(run: CallRun): ReturnType<typeof RateGate.activeLimiter> {
  return gateOf(run)?.activeLimiter(run);
}

export function observe(run: CallRun, answer: Answer): void {
  const gate = gateOf(run);
  if (gate === undefined) run.pushback = pushbackOf(run, answer);
  else gate.observe(run, answer);
}

export function noteSuccess(run: CallRun, response: AxiosResponse): void {
  gateOf(run)?.noteSuccess(run, response);
}

export function gateWait(run: CallRun, now: number): ReturnType<typeof RateGate.gateWait> {
  return gateOf(run)?.gateWait(run, now);
}

export function takeTurn(run: CallRun): ReturnType<typeof RateGate.takeTurn> {
  return gateOf(run)?.takeTurn(run);
}
