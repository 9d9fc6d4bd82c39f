import { take } from './rate-rule';
import type { RateState } from './rate-state';
import type { RateLimitPacing } from '../types';

/**
 * The pace an engaged limiter's calls leave at: the fleet's send times while the limiter is shared
 * and its store answers (`RateLimitPacing.active`: the store moves the rate, and the limiter keeps
 * only its queue, bound and on/off state), else its own rule's. Each function is one question the
 * limiter (`rate-limiter.ts`) puts to whichever pace holds now.
 */

/** When the next waiting call may go (`undefined`: shared, no send time held yet: the store's answer wakes the queue). */
export function nextSendAt(rule: RateState, pacing: RateLimitPacing | undefined, now: number): number | undefined {
  return pacing?.active ? pacing.next(now) : Math.max(rule.nextAt, rule.pausedUntil);
}

/**
 * Whether one call may go now, taking its send time if so (the rule after it): a send time the fleet
 * granted, else the rule's (`take`: grown while calls wait beyond the rate, then booked).
 */
export function admitted(
  rule: RateState | undefined,
  pacing: RateLimitPacing | undefined,
  now: number,
  demand: boolean,
): { rule: RateState | undefined; go: boolean } {
  if (pacing?.active) {
    const next = pacing.next(now);
    const go = next !== undefined && now >= next;
    if (go) pacing.use();
    return { rule, go };
  }
  if (rule === undefined) return { rule, go: true };
  const booking = take(rule, now, { successes: 0, policyRate: undefined, demand }, 1, 0);
  return { rule: booking.state, go: booking.granted > 0 };
}

/** How long a call asking now would wait behind `queued` others (ms); `heldUntil`: a window's hold. */
export function waitMs(
  rule: RateState,
  pacing: RateLimitPacing | undefined,
  queued: number,
  now: number,
  heldUntil: number,
): number {
  if (pacing?.active) return pacing.expectedWaitMs(queued, now);
  const start = Math.max(now, rule.nextAt, rule.pausedUntil, heldUntil);
  return start - now + (queued * 1000) / rule.ratePerSecond;
}
