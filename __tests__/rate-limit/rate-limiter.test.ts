/**
 * The rate limiter's rules, on jest's fake clock: off until a throttle, FIFO turns at the rate,
 * one cut per burst, a pause for Retry-After, the queue bound, relaxing, and no timer left behind.
 */
import { RateLimiter } from '../../lib/guards/rate-limiter';
import { RATE_RULE } from '../../lib/guards/rate-state';
const { beta: BETA, gentleProbe: GENTLE_PROBE, relaxMs: RELAX_MS, seedRate: SEED_RATE, stepMs: STEP_MS } = RATE_RULE;
import type { RateLimitEvent, RateLimitPacing } from '../../lib/types';

let events: RateLimitEvent[];
const make = (maxQueue = 100): RateLimiter =>
  new RateLimiter(
    'http://api.test',
    () => Date.now(),
    maxQueue,
    (e) => events.push(e),
  );

beforeEach(() => {
  jest.useFakeTimers({ now: 1_000_000 });
  events = [];
});
afterEach(() => jest.useRealTimers());

/** Queues `n` acquires; records the fake time each was let go at, in order of release. */
function queueUp(limiter: RateLimiter, n: number, released: Array<[number, number]>): Array<() => void> {
  const cancels: Array<() => void> = [];
  for (let i = 0; i < n; i++) {
    const turn = limiter.acquire();
    if (turn === 'go') released.push([i, Date.now()]);
    else if (turn === 'full') throw new Error('full');
    else {
      void turn.turn.then(() => released.push([i, Date.now()]));
      cancels.push(turn.cancel);
    }
  }
  return cancels;
}

test('off, every call goes at once and no timer is set', () => {
  const limiter = make();
  for (let i = 0; i < 1000; i++) expect(limiter.acquire()).toBe('go');
  expect(jest.getTimerCount()).toBe(0);
  expect(limiter.view()).toEqual({ state: 'off', ratePerSecond: Infinity, queued: 0, pausedUntil: 0 });
});

test('the first throttle engages it at the seed rate and says so', () => {
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity });
  expect(limiter.state).toBe('on');
  expect(limiter.ratePerSecond).toBe(SEED_RATE);
  expect(events).toEqual([{ origin: 'http://api.test', state: 'engaged', ratePerSecond: SEED_RATE }]);
});

test('while on, calls go one interval apart, first in first out', async () => {
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity });
  const released: Array<[number, number]> = [];
  queueUp(limiter, 4, released);
  const start = Date.now();
  await jest.advanceTimersByTimeAsync(1000 / SEED_RATE - 1);
  expect(released.map(([i]) => i)).toEqual([0]);
  await jest.advanceTimersByTimeAsync(1000);
  expect(released.map(([i]) => i)).toEqual([0, 1, 2, 3]);
  const gaps = released.slice(1).map(([, at], k) => at - released[k]![1]);
  // The rate may have grown while calls queued (slow start), never faster than double the seed.
  for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(1000 / SEED_RATE / 2 - 1);
  expect(released[0]![1]).toBe(start);
});

test('a burst of 429s to calls sent before the cut cuts the rate once', () => {
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity });
  const rate = limiter.ratePerSecond;
  for (let i = 0; i < 50; i++) limiter.throttled({ sentAt: Date.now() - 10 });
  expect(limiter.ratePerSecond).toBe(rate);
});

test('a throttle after the cut cuts to BETA of the successes measured over the last second', () => {
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity });
  const cutAt = Date.now();
  // 80 successes a second, for a second and a half.
  for (let t = 0; t < 1500; t += 12.5) {
    jest.setSystemTime(cutAt + t);
    limiter.succeeded();
  }
  limiter.throttled({ sentAt: Date.now() - 20 });
  expect(limiter.capacity).toBeGreaterThan(75);
  expect(limiter.capacity).toBeLessThan(85);
  expect(limiter.ratePerSecond).toBeLessThanOrEqual(SEED_RATE * BETA);
});

test('a Retry-After pauses the whole queue until it has passed', async () => {
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity, pauseMs: 1000 });
  const released: Array<[number, number]> = [];
  const start = Date.now();
  queueUp(limiter, 3, released);
  await jest.advanceTimersByTimeAsync(999);
  expect(released).toEqual([]);
  await jest.advanceTimersByTimeAsync(1);
  expect(released[0]).toEqual([0, start + 1000]);
  expect(limiter.expectedWaitMs()).toBeGreaterThan(0);
});

test('the queue has a bound; a place given up is skipped', async () => {
  const limiter = make(2);
  limiter.throttled({ sentAt: -Infinity, pauseMs: 100 });
  const released: Array<[number, number]> = [];
  const [cancelFirst] = queueUp(limiter, 2, released);
  expect(limiter.full).toBe(true);
  expect(limiter.acquire()).toBe('full');
  cancelFirst!();
  await jest.advanceTimersByTimeAsync(200);
  expect(released.map(([i]) => i)).toEqual([1]);
});

test(`it relaxes to unlimited ${RELAX_MS} ms after the last throttle, once the queue is empty`, async () => {
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity });
  await jest.advanceTimersByTimeAsync(RELAX_MS - 1);
  limiter.succeeded();
  expect(limiter.state).toBe('on');
  await jest.advanceTimersByTimeAsync(1);
  limiter.succeeded();
  expect(limiter.state).toBe('off');
  expect(limiter.ratePerSecond).toBe(Infinity);
  expect(events.map((e) => e.state)).toEqual(['engaged', 'relaxed']);
  expect(limiter.acquire()).toBe('go');
});

test("a policy's stated rate caps the pace", () => {
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity, policyRate: 10 });
  expect(limiter.ratePerSecond).toBeLessThanOrEqual(10);
  limiter.hinted(5);
  expect(limiter.ratePerSecond).toBeLessThanOrEqual(5);
});

test('close() lets every waiting call go and leaves no timer', async () => {
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity, pauseMs: 60_000 });
  const released: Array<[number, number]> = [];
  queueUp(limiter, 3, released);
  expect(jest.getTimerCount()).toBe(1);
  limiter.close();
  await jest.advanceTimersByTimeAsync(0);
  expect(released).toHaveLength(3);
  expect(jest.getTimerCount()).toBe(0);
});

test("after a pausing server's cut the rate creeps, and does not close back on the capacity", async () => {
  const limiter = make(5000);
  limiter.throttled({ sentAt: -Infinity });
  // A server that answers at once and allows 100 a second: every call past that is refused.
  let allowedAt = Date.now();
  let refusedAt: number | undefined;
  const sendWhenReleased = (turn: ReturnType<RateLimiter['acquire']>): void => {
    const answer = (): void => {
      const now = Date.now();
      if (now >= allowedAt) {
        allowedAt = Math.max(allowedAt, now - 100) + 10;
        limiter.succeeded();
      } else if (refusedAt === undefined) {
        refusedAt = now;
        limiter.throttled({ sentAt: now, pauseMs: 1000 });
      }
    };
    if (turn === 'go') answer();
    else if (turn !== 'full') void turn.turn.then(answer);
  };
  for (let i = 0; i < 2000; i++) sendWhenReleased(limiter.acquire());
  // Slow start finds the limit, the refusal cuts and pauses.
  while (refusedAt === undefined) await jest.advanceTimersByTimeAsync(STEP_MS);
  const cut = limiter.ratePerSecond;
  expect(limiter.capacity).toBeGreaterThan(60);
  expect(cut).toBeLessThanOrEqual(limiter.capacity! * BETA);
  // Nine seconds more of demand above the rate (calls always queued).
  await jest.advanceTimersByTimeAsync(9000);
  expect(limiter.queued).toBeGreaterThan(0);
  // 0.2 % a second past the pause: where an AIMD closing on the capacity would be at 98 % of it
  // within half a second, this one is within 2 % of its cut.
  expect(limiter.ratePerSecond).toBeGreaterThan(cut);
  expect(limiter.ratePerSecond).toBeLessThanOrEqual(cut * (1 + GENTLE_PROBE) ** (9000 / STEP_MS) + 1e-9);
});

test("a spent quota's reset, handed over as a pause, holds the queue at once (the gate believes a window's reset)", () => {
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity, pauseMs: 1800 });
  expect(limiter.state).toBe('on');
  expect(limiter.pausedUntil).toBe(Date.now() + 1800);
});

test('it starts at the rate its scope was served at, believed as the capacity, when that is above the seed rate', () => {
  const busy = make();
  busy.throttled({ sentAt: -Infinity, startRate: 300 });
  expect(busy.ratePerSecond).toBe(300);
  expect(busy.capacity).toBe(300);
  // A scope served a call or two a second says little: slow start from the seed rate.
  const quiet = make();
  quiet.throttled({ sentAt: -Infinity, startRate: 2 });
  expect(quiet.ratePerSecond).toBe(SEED_RATE);
  expect(quiet.capacity).toBeUndefined();
});

test('its rate grows only while calls wait beyond it: calls that go at once leave it where it is', async () => {
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity, startRate: 100 });
  // One call every 50 ms for 3 s, at half the rate: each goes at once, none waits.
  for (let t = 0; t < 60; t++) {
    expect(limiter.acquire()).toBe('go');
    await jest.advanceTimersByTimeAsync(50);
  }
  expect(limiter.ratePerSecond).toBe(100);
  // With calls waiting, the same time grows it (probing past the capacity).
  const released: Array<[number, number]> = [];
  queueUp(limiter, 99, released);
  await jest.advanceTimersByTimeAsync(900);
  expect(limiter.ratePerSecond).toBeGreaterThan(100);
});

test('shared: a throttle goes to the fleet with its pause, and the rate its scope was served at', () => {
  const reported: Array<{ pauseMs?: number | undefined; startRate?: number | undefined }> = [];
  const pacing: RateLimitPacing = {
    active: true,
    ratePerSecond: Infinity,
    pausedUntil: 0,
    onUntil: 0,
    next: () => undefined,
    use: () => undefined,
    want: () => undefined,
    expectedWaitMs: () => 0,
    succeeded: () => undefined,
    throttled: ({ pauseMs, startRate }) => void reported.push({ pauseMs, startRate }),
    hinted: () => undefined,
    close: () => undefined,
  };
  const limiter = new RateLimiter('http://api.test', () => Date.now(), 100, undefined, pacing);
  limiter.throttled({ sentAt: -Infinity, startRate: 250 });
  limiter.throttled({ sentAt: Date.now(), pauseMs: 1670 });
  expect(reported).toEqual([
    { pauseMs: undefined, startRate: 250 },
    { pauseMs: 1670, startRate: undefined },
  ]);
});

test('a success that spent the quota holds the rate where it is for a step', async () => {
  const limiter = make(1000);
  limiter.throttled({ sentAt: -Infinity });
  const released: Array<[number, number]> = [];
  queueUp(limiter, 50, released);
  const before = limiter.ratePerSecond;
  for (let t = 0; t < 10; t++) {
    limiter.spentOnSuccess({});
    await jest.advanceTimersByTimeAsync(STEP_MS - 1);
  }
  expect(limiter.ratePerSecond).toBe(before);
  await jest.advanceTimersByTimeAsync(3 * STEP_MS);
  // Without it, slow start doubles the rate every step.
  expect(limiter.ratePerSecond).toBeGreaterThan(before);
});

test("a window's quota, as the server last told it, holds the queue once the calls sent since have spent it", async () => {
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity, startRate: 1000 });
  const start = Date.now();
  // Two left until the window resets in 500 ms, counted as of a request sent 10 ms ago.
  limiter.heard({ ok: true, remaining: 2, resetAt: start + 500, sentAt: start - 10, at: start }, true);
  const released: Array<[number, number]> = [];
  queueUp(limiter, 4, released);
  await jest.advanceTimersByTimeAsync(100);
  expect(released.map(([i]) => i)).toEqual([0, 1]);
  expect(limiter.expectedWaitMs()).toBeGreaterThanOrEqual(400);
  // An answer to a request sent before that one says nothing newer: still held.
  limiter.heard({ ok: true, remaining: 5, resetAt: start + 500, sentAt: start - 50, at: start }, true);
  await jest.advanceTimersByTimeAsync(300);
  expect(released).toHaveLength(2);
  // The reset: a new window, the rest go at the pace.
  await jest.advanceTimersByTimeAsync(100);
  expect(released.map(([i]) => i)).toEqual([0, 1, 2, 3]);
  expect(released[2]![1]).toBeGreaterThanOrEqual(start + 500);
});
