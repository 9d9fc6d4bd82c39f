/**
 * The rate rule's pause; its slow start when its holder hears the server late; and a cut whose window counted too few
 * successes to believe; and throttles with no hint, which cut only past a small share of the answers
 * (a server that refuses some calls at random, whatever the rate, must not take the rate down). The
 * fleet's script runs the same rule (`__tests__/fleet/rate-rule-parity.test.ts`).
 */
import { booked, engaged, grown, throttle, throttled } from '../../lib/guards/rate-rule';
import { counted, serving } from '../../lib/guards/rate-count';
import { RATE_RULE } from '../../lib/guards/rate-state';
import type { RateState } from '../../lib/guards/rate-state';

const { stepMs: STEP_MS } = RATE_RULE;
const T0 = 1_700_000_000_000;

/** An engaged state with `successes` counted at each of the given times. */
function withSuccessesAt(times: number[]): RateState {
  let state = engaged(T0, Infinity, undefined);
  for (const at of times) state = counted(state, at, 1);
  return state;
}

test('a pause (a Retry-After, a spent quota the gate believed) holds whatever was counted', () => {
  const now = T0 + 900;
  const after = throttled(withSuccessesAt([T0 + 650]), now, { sentAt: now, pauseMs: 1500, graceMs: 0 });
  expect(after.pausedUntil).toBe(now + 1500);
});

test("a fleet's start is the sum of what its processes were served at, until it cuts or is past joinMs old", () => {
  const report = { sentAt: -Infinity, pauseMs: undefined, graceMs: 0, successes: 0, policyRate: undefined };
  // One process engaged at the 40 a second it was served; another, of the same burst, was served 35.
  const first = throttle(undefined, T0, { ...report, startRate: 40 });
  const both = throttle(first, T0 + 50, { ...report, startRate: 35 });
  expect([both.ratePerSecond, both.capacity]).toEqual([75, 75]);
  // Under a policy's ceiling (97 a second for 100) the sum is capped.
  const capped = throttle(throttle(undefined, T0, { ...report, startRate: 60, policyRate: 100 }), T0 + 50, {
    ...report,
    startRate: 60,
  });
  expect(capped.ratePerSecond).toBeCloseTo(97, 9);
  // A process that engages after joinMs, or after a cut, adds nothing.
  expect(throttle(first, T0 + RATE_RULE.joinMs + 1, { ...report, startRate: 35 }).ratePerSecond).toBe(40);
  const cut = throttled(first, T0 + 200, { sentAt: T0 + 200, pauseMs: undefined, graceMs: 0 });
  expect(throttle(cut, T0 + 300, { ...report, startRate: 35 }).ratePerSecond).toBe(cut.ratePerSecond);
});

test('a scope is served while it engaged less than a second ago, or a success was counted within the last second', () => {
  const state = engaged(T0, Infinity, undefined);
  expect(serving(state, T0 + 999)).toBe(true);
  expect(serving(state, T0 + 1000)).toBe(false);
  const served = counted(state, T0 + 1500, 1);
  expect(serving(served, T0 + 2000)).toBe(true);
  expect(serving(served, T0 + 2600)).toBe(false);
});

describe('growth when the holder hears the server late (a fleet on a slow store)', () => {
  /** The rate after `ms` of demand from the seed, its holder hearing the server `lagMs` late. */
  const rateAfter = (ms: number, lagMs?: number): number =>
    grown(engaged(T0, Infinity, undefined), T0 + ms, true, lagMs).ratePerSecond;

  test('a process (no lag) doubles the rate every step in slow start', () => {
    expect(rateAfter(3 * STEP_MS)).toBe(RATE_RULE.seedRate * 8);
  });

  test('a lag of a step or less changes nothing', () => {
    expect(rateAfter(3 * STEP_MS, STEP_MS)).toBe(RATE_RULE.seedRate * 8);
    expect(rateAfter(3 * STEP_MS, 40)).toBe(RATE_RULE.seedRate * 8);
  });

  test('a 300 ms lag doubles the rate once per 300 ms, not three times', () => {
    expect(rateAfter(299, 300)).toBe(RATE_RULE.seedRate);
    expect(rateAfter(300, 300)).toBe(RATE_RULE.seedRate * 2);
    expect(rateAfter(900, 300)).toBe(RATE_RULE.seedRate * 8);
  });

  test('growth resumes from where the last step ended: takes every 25 ms on a lagging store add up', () => {
    let state = engaged(T0, Infinity, undefined);
    for (let t = 25; t <= 600; t += 25) state = grown(state, T0 + t, true, 250);
    expect(state.ratePerSecond).toBe(RATE_RULE.seedRate * 4);
    expect(state.stepAt).toBe(T0 + 500);
  });

  test('probing past a measured capacity also steps once per lag', () => {
    const atTarget = { ...engaged(T0, Infinity, undefined), capacity: 100, ratePerSecond: 100 * RATE_RULE.targetShare };
    const probed = grown(atTarget, T0 + 600, true, 300);
    expect(probed.probeSteps).toBe(2);
    expect(grown(atTarget, T0 + 600, true).probeSteps).toBe(6);
    expect(probed.ratePerSecond).toBeCloseTo(
      100 * RATE_RULE.targetShare * (1 + RATE_RULE.probe) * (1 + 2 * RATE_RULE.probe),
      9,
    );
  });
});

describe('a throttle whose window counted too few successes to believe', () => {
  /** Slow start from the seed for `ms` of demand, then `successes` counted just before a throttle at `ms`. */
  function cutAfter(ms: number, successes: number, from: RateState = engaged(T0, Infinity, undefined)): RateState {
    let state = grown(from, T0 + ms, true);
    if (successes > 0) state = counted(state, T0 + ms - 1, successes);
    return throttled(state, T0 + ms, { sentAt: T0 + ms, pauseMs: undefined, graceMs: 0 });
  }

  test('in slow start: the rate halves and slow start goes on (not one call a second)', () => {
    // 300 ms of demand: 20 -> 160 a second; nothing answered yet, so nothing measured.
    const cut = cutAfter(300, 0);
    expect(cut.ratePerSecond).toBe((RATE_RULE.seedRate * 8) / 2);
    expect(cut.capacity).toBeUndefined();
    expect(grown(cut, T0 + 300 + STEP_MS, true).ratePerSecond).toBe(RATE_RULE.seedRate * 8);
  });

  test('successes at an eighth of the rate or more are believed: the cut goes to beta of them', () => {
    // 6 successes in 300 ms: 20 a second, an eighth of 160.
    const cut = cutAfter(300, 6);
    expect(cut.capacity).toBeCloseTo(20, 6);
    expect(cut.ratePerSecond).toBeCloseTo(20 * RATE_RULE.beta, 6);
    // 5: under an eighth, not believed.
    expect(cutAfter(300, 5).capacity).toBeUndefined();
  });

  test('with a capacity known, the last estimate stands', () => {
    const known = { ...engaged(T0, Infinity, undefined), capacity: 100, ratePerSecond: 98 };
    // One success in the window: about one a second, which was the rate before this rule.
    const cut = cutAfter(900, 1, known);
    expect(cut.capacity).toBe(100);
    expect(cut.ratePerSecond).toBeCloseTo(100 * RATE_RULE.beta, 6);
  });
});

describe("throttles with no hint since the last cut: up to 2 % of the window's answers cut nothing", () => {
  const CUT_AT = T0 + 500;
  /** Past slow start: a cut at `CUT_AT` with 100 successes a second measured, then `successes` more over the next 800 ms. */
  function afterCut(successes: number): RateState {
    let state = engaged(T0, Infinity, undefined);
    for (let i = 0; i < 50; i++) state = counted(state, T0 + i * 10, 1);
    state = throttled(state, CUT_AT, { sentAt: CUT_AT, pauseMs: undefined, graceMs: 0 });
    for (let i = 0; i < successes; i++) state = counted(state, CUT_AT + 100 + (i * 800) / successes, 1);
    return state;
  }
  const bare = (state: RateState, now: number): RateState =>
    throttled(state, now, { sentAt: now - 20, pauseMs: undefined, graceMs: 0, hintless: true });

  test('one among 200 answers: no cut', () => {
    const state = afterCut(199);
    expect(state.capacity).toBeDefined();
    const after = bare(state, CUT_AT + 950);
    expect(after.ratePerSecond).toBe(state.ratePerSecond);
    expect(after.lastCutAt).toBe(CUT_AT);
  });

  test('past 2 % of them: the throttle that passes it cuts', () => {
    let state = afterCut(200);
    const rate = state.ratePerSecond;
    // 4 refusals in 204 answers are within 2 % (4.08); 5 in 205 are not (4.1).
    for (let i = 1; i <= 4; i++) state = bare(state, CUT_AT + 950 + i);
    expect(state.lastCutAt).toBe(CUT_AT);
    state = bare(state, CUT_AT + 955);
    expect(state.lastCutAt).toBe(CUT_AT + 955);
    expect(state.ratePerSecond).toBeLessThan(rate);
  });

  test('a throttle with a hint (a wait, a quota, a policy) cuts at once, however few', () => {
    const state = afterCut(199);
    const after = throttled(state, CUT_AT + 950, { sentAt: CUT_AT + 930, pauseMs: 50, graceMs: 0 });
    expect(after.lastCutAt).toBe(CUT_AT + 950);
    expect(after.ratePerSecond).toBeLessThan(state.ratePerSecond);
  });

  test('in slow start (no capacity measured yet) a bare throttle cuts as any does', () => {
    let state = engaged(T0, Infinity, undefined);
    for (let i = 0; i < 30; i++) state = counted(state, T0 + i * 10, 1);
    const after = bare(state, T0 + 400);
    expect(after.lastCutAt).toBe(T0 + 400);
  });

  test('the refusals a cut answered are not held against the rate it set', () => {
    let state = afterCut(200);
    for (let i = 1; i <= 5; i++) state = bare(state, CUT_AT + 950 + i);
    expect(state.lastCutAt).toBe(CUT_AT + 955);
    // Sent after that cut: the first refusal since it, among 200 answers.
    state = bare(state, CUT_AT + 1000);
    expect(state.lastCutAt).toBe(CUT_AT + 955);
  });
});

describe('the rule against two servers, driven for 20 s (calls offered at 500 a second, answered 20 ms later)', () => {
  const TICK_MS = 5;
  const LATENCY_MS = 20;
  const OFFERED = 500;

  /**
   * Open-loop demand through the rule: off (every call goes) until the first throttle, then calls
   * wait their turn at its rate. `refuses(sentAt, n)` is the server: whether it refuses the n-th
   * request (a bare 429). Returns what the server saw over the last 10 s, per second.
   */
  function drive(refuses: (sentAt: number, n: number) => boolean): { successes: number; refusals: number } {
    let state: RateState | undefined;
    let waiting = 0;
    let sent = 0;
    const inFlight: Array<{ sentAt: number; refused: boolean }> = [];
    let successes = 0;
    let refusals = 0;
    const seconds = 20;
    for (let now = T0; now < T0 + seconds * 1000; now += TICK_MS) {
      while (inFlight.length > 0 && inFlight[0]!.sentAt + LATENCY_MS <= now) {
        const { sentAt, refused } = inFlight.shift()!;
        const late = sentAt >= T0 + (seconds - 10) * 1000;
        if (refused) {
          if (late) refusals++;
          state =
            state === undefined
              ? engaged(now, Infinity, undefined)
              : throttled(state, now, { sentAt, pauseMs: undefined, graceMs: 0, hintless: true });
        } else {
          if (late) successes++;
          if (state !== undefined) state = counted(state, now, 1);
        }
      }
      // It grows while calls wait beyond its rate (a backlog left from the last tick).
      if (state !== undefined) state = grown(state, now, waiting >= 1);
      waiting += (OFFERED * TICK_MS) / 1000;
      while (waiting >= 1 && (state === undefined || (now >= state.nextAt && now >= state.pausedUntil))) {
        if (state !== undefined) state = booked(state, now, 1, 0).state;
        inFlight.push({ sentAt: now, refused: refuses(now, ++sent) });
        waiting--;
      }
    }
    return { successes: successes / 10, refusals: refusals / 10 };
  }

  test('one request in a hundred refused at random: the calls still go at the rate offered', () => {
    // Before: each such refusal cut the rate, which settled near a fifth of the offer.
    const { successes, refusals } = drive((_at, n) => n % 100 === 0);
    expect(successes + refusals).toBeGreaterThan(OFFERED * 0.95);
    expect(refusals / (successes + refusals)).toBeLessThan(0.012);
  });

  test('a limit of 200 a second: paced to it, with a few refusals', () => {
    let tokens = 5;
    let last = T0;
    const bucket = (at: number): boolean => {
      tokens = Math.min(5, tokens + ((at - last) * 200) / 1000);
      last = at;
      if (tokens < 1) return true;
      tokens--;
      return false;
    };
    const { successes, refusals } = drive((at) => bucket(at));
    expect(successes).toBeGreaterThan(190);
    expect(successes).toBeLessThanOrEqual(201);
    expect(refusals / (successes + refusals)).toBeLessThan(0.05);
  });
});
