/**
 * A limiter shared through a `RateLimitStore` (`rateLimit.shared`): `SharedPacing` over a schedule, on jest's fake clock, against a
 * store kept in memory: calls leave at the store's send times (in the store's clock, converted),
 * one request at a time asks for every waiting call, successes ride along, throttles are reported,
 * and a store that is down or silent hands pacing back to the local limiter.
 */
import { RATE_RULE } from '../../lib/guards/rate-state';
import { RateLimiter } from '../../lib/guards/rate-limiter';
import { SharedPacing } from '../../lib/redis/shared-pacing';
import type { RateLimitFleetState, RateLimitGrant, RateLimitReport, RateLimitSchedule } from '../../lib/types';

const { seedRate: SEED_RATE } = RATE_RULE;

/** The store's clock runs 5 s ahead of the process's: the limiter must convert. */
const SKEW = 5000;
const INTERVAL = 100;

class MemoryStore implements RateLimitSchedule {
  up = true;
  /** `false`: takes never answer (a store slower than any timeout, as the Redis store reports it: undefined). */
  answers = true;
  takes: Array<{ count: number; successes: number }> = [];
  throttles: Array<{ report: RateLimitReport; successes: number }> = [];
  private tat = 0;
  private paused = 0;
  usable = (): boolean => this.up;
  take(_key: string, count: number, successes: number): Promise<RateLimitGrant | undefined> {
    this.takes.push({ count, successes });
    if (!this.answers) return Promise.resolve(undefined);
    const now = Date.now() + SKEW;
    const first = Math.max(this.tat, now, this.paused);
    this.tat = first + count * INTERVAL;
    return Promise.resolve({
      now,
      state: 'on',
      granted: count,
      first,
      intervalMs: INTERVAL,
      retryAt: now,
      ratePerSecond: 1000 / INTERVAL,
      pausedUntil: this.paused,
      relaxAt: now + 5000,
    });
  }
  throttle(_key: string, report: RateLimitReport, successes: number): Promise<RateLimitFleetState | undefined> {
    this.throttles.push({ report, successes });
    const now = Date.now() + SKEW;
    if (report.pauseMs !== undefined) this.paused = Math.max(this.paused, now + report.pauseMs);
    return Promise.resolve({ now, ratePerSecond: 1000 / INTERVAL, pausedUntil: this.paused });
  }
}

let store: MemoryStore;
const make = (): RateLimiter => {
  const now = (): number => Date.now();
  return new RateLimiter('http://api.test', now, 100, undefined, new SharedPacing('http://api.test', store, now));
};

beforeEach(() => {
  jest.useFakeTimers({ now: 1_000_000 });
  store = new MemoryStore();
});
afterEach(() => jest.useRealTimers());

/** Queues `n` acquires; records the fake time each was let go at. */
function queueUp(limiter: RateLimiter, n: number, released: number[]): void {
  for (let i = 0; i < n; i++) {
    const turn = limiter.acquire();
    if (turn === 'go') released.push(Date.now());
    else if (turn === 'full') throw new Error('full');
    else void turn.turn.then(() => released.push(Date.now()));
  }
}

test("calls leave at the store's send times, converted from its clock; one request at a time asks for all waiting calls", async () => {
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity });
  expect(store.throttles).toEqual([
    { report: { ageMs: Infinity, pauseMs: undefined, policyRate: undefined }, successes: 0 },
  ]);
  const start = Date.now();
  const released: number[] = [];
  queueUp(limiter, 5, released);
  await jest.advanceTimersByTimeAsync(1000);
  // The first call asked alone; the four that queued behind it, in one request.
  expect(store.takes.map((t) => t.count)).toEqual([1, 4]);
  expect(released.map((at) => at - start)).toEqual([0, 100, 200, 300, 400]);
  expect(limiter.view()).toMatchObject({ state: 'on', ratePerSecond: 1000 / INTERVAL, queued: 0 });
  limiter.close();
});

test("successes ride along with the next request; a throttle is reported with its age, and the fleet's pause drops the send times held in it", async () => {
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity });
  limiter.succeeded();
  limiter.succeeded();
  const start = Date.now();
  const released: number[] = [];
  queueUp(limiter, 3, released);
  expect(store.takes).toEqual([{ count: 1, successes: 2 }]);
  await jest.advanceTimersByTimeAsync(50);
  // The first went at once; send times at 100 and 200 ms are held.
  expect(released.map((at) => at - start)).toEqual([0]);
  limiter.succeeded();
  limiter.throttled({ sentAt: Date.now() - 30, pauseMs: 1000 });
  expect(store.throttles[1]).toEqual({ report: { ageMs: 30, pauseMs: 1000, policyRate: undefined }, successes: 1 });
  await jest.advanceTimersByTimeAsync(2000);
  // The fleet paused until 1050 ms: the held times fell in it, and new ones follow it.
  expect(released.map((at) => at - start)).toEqual([0, 1050, 1150]);
  limiter.close();
});

test('a store that is down: the local limiter paces at its own rate and the store is not asked', async () => {
  store.up = false;
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity });
  const start = Date.now();
  const released: number[] = [];
  queueUp(limiter, 3, released);
  await jest.advanceTimersByTimeAsync(1000);
  expect(store.takes).toEqual([]);
  expect(store.throttles).toEqual([]);
  expect(released.map((at) => at - start)).toEqual([0, 1000 / SEED_RATE, 2000 / SEED_RATE]);
  limiter.close();
});

test('a store that does not answer hands the waiting calls back to the local limiter', async () => {
  store.answers = false;
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity });
  const released: number[] = [];
  queueUp(limiter, 3, released);
  // The Redis store resolves `undefined` after its timeout and then reports itself unusable.
  store.up = false;
  await jest.advanceTimersByTimeAsync(1000);
  expect(released).toHaveLength(3);
  limiter.close();
});

test('close() lets every waiting call go and leaves no timer; a late answer does nothing', async () => {
  let answer!: (grant: RateLimitGrant | undefined) => void;
  store.take = (_key, count, successes) => {
    store.takes.push({ count, successes });
    return new Promise((resolve) => (answer = resolve));
  };
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity });
  const released: number[] = [];
  queueUp(limiter, 3, released);
  limiter.close();
  await jest.advanceTimersByTimeAsync(0);
  expect(released).toHaveLength(3);
  expect(jest.getTimerCount()).toBe(0);
  const now = Date.now() + SKEW;
  answer({
    now,
    state: 'on',
    granted: 0,
    first: now,
    intervalMs: 10,
    retryAt: now + 100,
    ratePerSecond: 100,
    pausedUntil: 0,
    relaxAt: now,
  });
  await jest.advanceTimersByTimeAsync(0);
  expect(jest.getTimerCount()).toBe(0);
});

test('a waiting call that gives up its place leaves no timer: the re-ask the store booked 10 s ahead is dropped', async () => {
  // The fleet is paused: the store grants nothing now and asks to be asked again in 10 s.
  store.take = (_key, count, successes) => {
    store.takes.push({ count, successes });
    const now = Date.now() + SKEW;
    return Promise.resolve({
      now,
      state: 'on' as const,
      granted: 0,
      first: now + 10_000,
      intervalMs: INTERVAL,
      retryAt: now + 10_000,
      ratePerSecond: 1000 / INTERVAL,
      pausedUntil: now + 10_000,
      relaxAt: now + 15_000,
    });
  };
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity });
  const place = limiter.acquire();
  if (place === 'go' || place === 'full') throw new Error(`expected a place in the queue, got ${place}`);
  await jest.advanceTimersByTimeAsync(0);
  // While the call waits, the re-ask holds the process (a timer, referenced).
  expect(store.takes).toHaveLength(1);
  expect(jest.getTimerCount()).toBe(1);
  place.cancel();
  expect(jest.getTimerCount()).toBe(0);
  limiter.close();
});

test('while the fleet is throttled, a process whose own last throttle is old stays on', async () => {
  const limiter = make();
  limiter.throttled({ sentAt: -Infinity });
  const released: number[] = [];
  // Keep asking: every grant pushes relaxAt 5 s past the store's now.
  for (let i = 0; i < 8; i++) {
    queueUp(limiter, 1, released);
    await jest.advanceTimersByTimeAsync(1000);
  }
  expect(limiter.state).toBe('on');
  limiter.close();
});
