import { RATE_RULE } from './rate-state';
import type { RateState } from './rate-state';
import type { PacingThrottle } from '../types';
import { counted, measured, withinNoise } from './rate-count';

/**
 * The rate rule: how an engaged limiter's rate moves and which send times it grants, as pure
 * functions of a plain, serialisable state. A process runs it (`RateLimiter`); the fleet runs the
 * same rule in Lua on Redis (`redis/rate-rule-script.ts`), which takes every number below as an
 * argument, and a parity test on a real Redis feeds both the same events and compares the states.
 *
 * An AIMD with slow start, paced rather than windowed:
 * - **engage**: at the first throttle the rate starts at `seedRate` (or a policy's ceiling);
 * - **grow**: while calls wait (demand above the rate), each `stepMs` (or the holder's lag behind
 *   the server, if longer: the fleet's round trip to its store) doubles the rate until the first cut
 *   (slow start); then closes on the measured capacity, then probes past it slowly, so a server that
 *   allows more is found. Against a server that pauses callers, probing is gentle;
 * - **cut**: a throttle of a call sent after the last cut (plus `graceMs`: the fleet's send times
 *   reach that far ahead) sets the capacity to the successes of the last second, if there are
 *   enough to believe, and cuts the rate to `beta` of it (or halves it before a capacity was
 *   measured): a burst of throttles cuts once. Past slow start, a throttle that says nothing but
 *   its status cuts only once such throttles since the last cut pass a small share of the answers
 *   (`noise`): a server or proxy that refuses a share of calls at random refuses it at any rate,
 *   and cutting for each took the rate down to a trickle;
 * - **pause**: a server's wait holds every send time until it ends.
 * What it counts (successes and throttles per step, the measured capacity) is `rate-count.ts`.
 * Switching off again (`relaxMs` without a throttle) is the holder's: a process relaxes when its
 * queue is empty, the fleet's Redis hash expires.
 */

const R = RATE_RULE;

/**
 * The state of a limiter engaging now, under a policy's `ceiling`, paused for `pauseMs`. `startRate`
 * is the rate the scope was served at before the throttle (successes per second): where it is above
 * `seedRate`, pacing starts there, believed as the capacity, so the pace is never below the demand
 * the server answered without refusing; else at `seedRate`, in slow start (a scope served a call or
 * two a second says little of what it allows, and a burst after it should not wait a second a call).
 */
export function engaged(now: number, ceiling: number, pauseMs: number | undefined, startRate?: number): RateState {
  const start = startRate !== undefined && startRate > R.seedRate ? startRate : undefined;
  const state: RateState = {
    ratePerSecond: Math.min(start ?? R.seedRate, ceiling),
    nextAt: now,
    pausedUntil: 0,
    pauseEndsAt: 0,
    lastCutAt: now,
    capacity: ceiling === Infinity ? start : Math.min(ceiling, start ?? ceiling),
    ceiling,
    stepAt: now,
    probeSteps: 0,
    gentle: false,
    engagedAt: now,
    successes: new Array<number>(R.windowSteps).fill(0),
    refusals: new Array<number>(R.windowSteps).fill(0),
    lastStep: Math.floor(now / R.stepMs),
  };
  return paused(state, now, pauseMs);
}

/**
 * Another process of the fleet engaged too, by a throttle of the same burst, having seen its scope
 * served at `share` per second: each process was served its share, so the fleet's start (rate and
 * capacity, under the ceiling) is their sum, while it is young (`joinMs`) and uncut. One process
 * alone reports its rate once, when it engages.
 */
export function joined(state: RateState, now: number, share: number): RateState {
  if (state.lastCutAt !== state.engagedAt || now - state.engagedAt > R.joinMs) return state;
  const ratePerSecond = Math.min(state.ratePerSecond + share, state.ceiling);
  const capacity = state.capacity === undefined ? undefined : Math.min(state.capacity + share, state.ceiling);
  return { ...state, ratePerSecond, capacity };
}

/** A server's policy states its rate (per second): pace a little under it. */
export function withPolicy(state: RateState, policyRate: number): RateState {
  const ceiling = policyRate * R.policyShare;
  return {
    ...state,
    ceiling,
    capacity: state.capacity ?? ceiling,
    ratePerSecond: Math.min(state.ratePerSecond, ceiling),
  };
}

/** Holds send times for `pauseMs` from now. */
export function paused(state: RateState, now: number, pauseMs: number | undefined): RateState {
  if (pauseMs === undefined || !(pauseMs > 0)) return state;
  const pausedUntil = Math.max(state.pausedUntil, now + pauseMs);
  // A hold of one call's share of a policy's window is no gap in the measurement; a longer one is.
  return { ...state, pausedUntil, pauseEndsAt: pauseMs >= R.longPauseMs ? pausedUntil : state.pauseEndsAt };
}

/** What a throttle tells the rule: when its attempt was sent, the pause asked for, the grace after a cut. */
export type ThrottleFacts = Pick<ThrottleReport, 'sentAt' | 'pauseMs' | 'graceMs' | 'hintless'>;

/** A throttle of an engaged limiter: cut once per burst unless it is noise, and pause. */
export function throttled(state: RateState, now: number, facts: ThrottleFacts): RateState {
  if (facts.sentAt < state.lastCutAt + facts.graceMs) return state;
  const next = counted(state, now, 0, 1);
  if (facts.hintless === true && withinNoise(next)) return next;
  // Without a measurement to believe (a pause just ended, too few successes), the last estimate stands.
  const capacity = measured(next, now) ?? next.capacity;
  // Never above beta of the rate that drew the throttle: a noisy estimate cannot make a cut a raise.
  const cut = capacity === undefined ? next.ratePerSecond / 2 : capacity * R.beta;
  const ratePerSecond = Math.max(R.minRate, Math.min(next.ratePerSecond * R.beta, cut, next.ceiling));
  const pauseMs = facts.pauseMs;
  // A server that pauses callers makes every probe past its limit cost the pause: probe gently.
  const gentle = pauseMs !== undefined && pauseMs >= R.longPauseMs;
  const refusals = new Array<number>(R.windowSteps).fill(0);
  return paused({ ...next, capacity, ratePerSecond, lastCutAt: now, probeSteps: 0, gentle, refusals }, now, pauseMs);
}

/**
 * The rate after the steps since the last; it grows only with `demand` (calls waiting beyond the
 * rate). `lagMs`: how late its holder hears the server (the fleet: a round trip to its store; a
 * process: 0). A growth step is at least that long, as TCP's window grows per round trip: a fleet
 * that grew every 100 ms would be several steps past the limit by the time it heard the throttle.
 */
export function grown(state: RateState, now: number, demand: boolean, lagMs = 0): RateState {
  // Time in a pause is no evidence the server allows more.
  if (now < state.pausedUntil) return { ...state, stepAt: now };
  const from = Math.max(state.stepAt, state.pauseEndsAt);
  const stepMs = Math.max(R.stepMs, lagMs);
  const steps = Math.floor((now - from) / stepMs);
  if (steps <= 0) return from === state.stepAt ? state : { ...state, stepAt: from };
  const stepAt = from + steps * stepMs;
  if (!demand) return { ...state, stepAt };
  let { ratePerSecond: rate, probeSteps } = state;
  const { capacity, gentle } = state;
  for (let i = 0; i < Math.min(steps, R.maxCatchUpSteps); i++) {
    // Against a server that pauses callers every probe past its limit costs the whole pause, so the
    // rate closes only on what the cut left (beta of the capacity) and then creeps.
    const target = capacity === undefined ? undefined : capacity * (gentle ? R.beta : R.targetShare);
    if (target === undefined) rate *= 2;
    else if (rate < target - R.epsilon) rate = Math.min(target, rate + (target - rate) * R.closeShare + R.closeFloor);
    else if (gentle) rate *= 1 + R.gentleProbe;
    else rate *= 1 + R.probe * ++probeSteps;
  }
  return { ...state, stepAt, probeSteps, ratePerSecond: Math.min(rate, state.ceiling) };
}

/** A success said the quota is spent: the pace is at the server's limit, so it does not grow for a step. */
export function atLimit(state: RateState, now: number): RateState {
  return { ...state, stepAt: Math.max(state.stepAt, now) };
}

/** Send times granted: `granted` of them, from `first`, `intervalMs` apart. */
export interface Booking {
  state: RateState;
  granted: number;
  first: number;
  intervalMs: number;
}

/**
 * Up to `count` send times from now to `aheadMs` ahead. A late timer keeps up to one interval of
 * credit (else every late timer would slow the rate), and no more (idle time is no licence for a
 * burst); nor does a pause.
 */
export function booked(state: RateState, now: number, count: number, aheadMs: number): Booking {
  const intervalMs = 1000 / state.ratePerSecond;
  const first = Math.max(state.nextAt, now - intervalMs, state.pausedUntil);
  if (first > now + aheadMs) return { state, granted: 0, first, intervalMs };
  // Due now, or within the horizon (its end excluded).
  const granted = Math.min(count, Math.max(1, Math.ceil((now + aheadMs - first) / intervalMs)));
  return { state: { ...state, nextAt: first + granted * intervalMs }, granted, first, intervalMs };
}

/**
 * The rule's two compositions, and the only way a holder moves a state: the process's limiter
 * (`guards/rate-limiter.ts`), the fleet's Lua (`redis/rate-rule-script.ts`, the same steps line for
 * line) and the parity test run these.
 *
 * `take`: successes since the last report counted, a policy's rate taken, the rate grown for the
 * steps since the last (only with `demand`: calls waiting beyond the rate — the process's queue, the
 * fleet's bookings ahead), then up to `count` send times booked from now to `aheadMs` ahead.
 */
export function take(
  state: RateState,
  now: number,
  facts: { successes: number; policyRate: number | undefined; demand: boolean; lagMs?: number | undefined },
  count: number,
  aheadMs: number,
): Booking {
  let s = counted(state, now, facts.successes);
  if (facts.policyRate !== undefined) s = withPolicy(s, facts.policyRate);
  return booked(grown(s, now, facts.demand, facts.lagMs), now, count, aheadMs);
}

/**
 * What a throttle reports to its holder (a limiter's `PacingThrottle`, as the fleet is told it too),
 * what was counted since, and the grace after a cut: throttles of attempts sent up to `graceMs` after
 * it were caused by the old rate.
 */
export interface ThrottleReport extends PacingThrottle {
  graceMs: number;
  successes: number;
}

/**
 * `throttle`: a limiter that was off engages (at `startRate`, under a policy's ceiling, paused);
 * one that was on counts what it was told, takes a policy's rate, and cuts (`throttled`).
 */
export function throttle(state: RateState | undefined, now: number, report: ThrottleReport): RateState {
  const policyRate = report.policyRate;
  if (state === undefined) {
    const ceiling = policyRate === undefined ? Infinity : policyRate * R.policyShare;
    return engaged(now, ceiling, report.pauseMs, report.startRate);
  }
  let s = counted(state, now, report.successes);
  if (policyRate !== undefined) s = withPolicy(s, policyRate);
  if (report.startRate !== undefined) s = joined(s, now, report.startRate);
  return throttled(s, now, report);
}
