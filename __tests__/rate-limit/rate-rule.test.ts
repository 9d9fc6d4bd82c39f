/**
 * The rate rule's answer to a believed reset (a spent quota's reset that one process holds for
 * proved): it pauses only if no success was counted since the server said the quota was spent. The
 * fleet's script runs the same rule (`__tests__/fleet/rate-rule-parity.test.ts`).
 */
import { counted, engaged, RATE_RULE, throttled } from '../../lib/guards/rate-rule';
import type { RateState } from '../../lib/guards/rate-rule';

const { stepMs: STEP_MS } = RATE_RULE;
const T0 = 1_700_000_000_000;

/** An engaged state with `successes` counted at each of the given times. */
function withSuccessesAt(times: number[]): RateState {
  let state = engaged(T0, Infinity, undefined);
  for (const at of times) state = counted(state, at, 1);
  return state;
}

const pauseOf = (state: RateState, now: number, spentAt: number | undefined): number =>
  throttled(state, now, { sentAt: now, pauseMs: 1500, graceMs: 0, spentAt }).pausedUntil;

test('no success since the quota was said spent: the reset holds', () => {
  const now = T0 + 900;
  expect(pauseOf(withSuccessesAt([T0 + 100, T0 + 250]), now, T0 + 300)).toBe(now + 1500);
});

test("a success counted after it (another process's): no pause, only the cut", () => {
  const now = T0 + 900;
  const state = withSuccessesAt([T0 + 100, T0 + 650]);
  const after = throttled(state, now, { sentAt: now, pauseMs: 1500, graceMs: 0, spentAt: T0 + 300 });
  expect(after.pausedUntil).toBe(0);
  expect(after.lastCutAt).toBe(now);
  expect(after.ratePerSecond).toBeLessThan(state.ratePerSecond);
});

test('the success that said it is spent, in the same step, proves nothing against it', () => {
  const now = T0 + 900;
  const saidAt = T0 + 3 * STEP_MS + 40;
  expect(pauseOf(withSuccessesAt([saidAt]), now, saidAt)).toBe(now + 1500);
});

test('a pause that is no believed reset (a Retry-After) holds whatever was counted', () => {
  const now = T0 + 900;
  expect(pauseOf(withSuccessesAt([T0 + 650]), now, undefined)).toBe(now + 1500);
});

test('heard in the step the quota was said spent: nothing could disprove it yet, so it holds nobody yet', () => {
  const saidAt = T0 + 3 * STEP_MS + 10;
  expect(pauseOf(withSuccessesAt([T0 + 100]), saidAt + 50, saidAt)).toBe(0);
});
