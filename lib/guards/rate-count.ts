import { RATE_RULE } from './rate-state';
import type { RateState } from './rate-state';

/**
 * What the rate rule (`rate-rule.ts`) counts of an engaged limiter: its successes and throttles per
 * `stepMs` bucket over the measuring window (a second), the capacity they measure, whether the scope
 * is being served, and whether bare throttles are within noise. Pure, as the rule is; the fleet's Lua
 * (`redis/rate-rule-lua.ts`) counts the same buckets in its hash.
 */

const R = RATE_RULE;

/** `count` more successes and `refused` more throttles, in the buckets of `now`. */
export function counted(state: RateState, now: number, count: number, refused = 0): RateState {
  const step = Math.floor(now / R.stepMs);
  const moved = Math.min(Math.max(0, step - state.lastStep), R.windowSteps);
  const successes = added(state.successes, moved, count);
  const refusals = added(state.refusals, moved, refused);
  return { ...state, successes, refusals, lastStep: Math.max(state.lastStep, step) };
}

/** A window's buckets `moved` steps on, `count` added to the newest (a new array). */
function added(buckets: number[], moved: number, count: number): number[] {
  const kept = buckets.slice(moved);
  while (kept.length < R.windowSteps) kept.push(0);
  kept[R.windowSteps - 1]! += count;
  return kept;
}

/**
 * Past slow start, the throttles since the last cut (a cut clears them; this one counted) are within
 * `noise` of the window's answers: as likely refusals the rate does not cause as a limit passed.
 */
export function withinNoise(state: RateState): boolean {
  if (state.capacity === undefined) return false;
  let refused = 0;
  let answers = 0;
  for (let i = 0; i < R.windowSteps; i++) {
    refused += state.refusals[i]!;
    answers += state.refusals[i]! + state.successes[i]!;
  }
  return refused <= answers * R.noise;
}

/** The scope is being served: a success counted within the last second, or engaged less than a second ago. */
export function serving(state: RateState, now: number): boolean {
  const window = R.windowSteps * R.stepMs;
  return now - state.engagedAt < window || countedAfter(state, now - window);
}

/** Successes were counted in a step after `at`'s (within the measuring window). */
function countedAfter(state: RateState, at: number): boolean {
  const after = Math.floor(at / R.stepMs);
  const buckets = state.successes;
  for (let i = 0; i < buckets.length; i++) {
    if (state.lastStep - (buckets.length - 1 - i) > after && buckets[i]! > 0) return true;
  }
  return false;
}

/**
 * Successes per second over the last second (since engaging, and out of a long pause), once enough was
 * measured to believe: long enough, and at least `leastBelieved` of the rate.
 */
export function measured(state: RateState, now: number): number | undefined {
  const since = now - Math.max(state.engagedAt, state.pauseEndsAt);
  if (since < 2 * R.stepMs) return undefined;
  const buckets = state.successes;
  const into = now - state.lastStep * R.stepMs;
  const rateOver = (steps: number): number => {
    const span = Math.min(steps * R.stepMs, since);
    const counted = Math.min(buckets.length, Math.ceil(span / R.stepMs) + 1);
    let sum = 0;
    for (let i = buckets.length - counted; i < buckets.length; i++) sum += buckets[i]!;
    // The current bucket is partly filled: the span runs to its start plus the time into it.
    return (sum * 1000) / Math.max(R.stepMs, Math.min(since, (counted - 1) * R.stepMs + into));
  };
  // Past slow start a short window would read the burst a server grants after a pause as its rate.
  if (state.capacity !== undefined && since < (R.windowSteps * R.stepMs) / 2) return undefined;
  const rate =
    state.capacity !== undefined ? rateOver(R.windowSteps) : Math.max(rateOver(R.windowSteps), rateOver(R.recentSteps));
  return rate >= state.ratePerSecond * R.leastBelieved ? rate : undefined;
}
