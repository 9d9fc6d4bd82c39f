import { RateLimiter } from '../../lib/guards/rate-limiter';
import { HeldSlots } from '../../lib/redis/held-slots';
import { SharedPacing } from '../../lib/redis/shared-pacing';
import type { RateLimitGrant, RateLimitSchedule } from '../../lib/redis';

// A fleet's schedule that answers late, on fake timers: what the limiter's callers get from it.

afterEach(() => jest.useRealTimers());

/**
 * The fleet's schedule at a fixed `rate`, answering every request `answerMs` later (half the trip
 * there, half back; its clock is the process's): send times one interval apart from the next free
 * one, as the store grants them. Counts the requests, and a grant that came back with every time
 * in it already past, which its calls must then spend at once.
 */
function slowSchedule(rate: number, answerMs: number) {
  const intervalMs = 1000 / rate;
  let nextAt = 0;
  const seen = { takes: 0, throttles: 0 };
  const schedule: RateLimitSchedule = {
    usable: () => true,
    take(_key, count) {
      seen.takes++;
      return new Promise<RateLimitGrant>((resolve) =>
        setTimeout(() => {
          const now = Date.now();
          const first = Math.max(nextAt, now - intervalMs);
          nextAt = first + count * intervalMs;
          setTimeout(
            () =>
              resolve({
                now,
                state: 'on',
                granted: count,
                first,
                intervalMs,
                retryAt: now + 1,
                ratePerSecond: rate,
                pausedUntil: 0,
                relaxAt: now + 5000,
              }),
            answerMs / 2,
          );
        }, answerMs / 2),
      );
    },
    throttle() {
      seen.throttles++;
      return Promise.resolve(undefined);
    },
  };
  return { schedule, seen };
}

/**
 * `callers` closed-loop callers through a limiter the fleet engaged (each call takes `latencyMs`,
 * then its caller asks for the next turn) for `runMs` of fake time; when each call was sent (ms
 * from the start).
 */
async function closedLoop(schedule: RateLimitSchedule, callers: number, latencyMs: number, runMs: number) {
  jest.useFakeTimers({ now: 1_000_000 });
  const now = () => Date.now();
  const limiter = new RateLimiter('https://api.example', now, 10_000, undefined, new SharedPacing('k', schedule, now));
  limiter.join();
  const startAt = now();
  const endAt = startAt + runMs;
  const sent: number[] = [];
  const caller = async (): Promise<void> => {
    while (now() < endAt) {
      const turn = limiter.acquire();
      if (typeof turn === 'object') await turn.turn;
      sent.push(now() - startAt);
      await new Promise((done) => setTimeout(done, latencyMs));
      limiter.succeeded();
    }
  };
  const all = Promise.all(Array.from({ length: callers }, caller));
  await jest.advanceTimersByTimeAsync(runMs + 1000);
  limiter.close();
  await all;
  return sent;
}

const between = (sent: number[], from: number, to: number) => sent.filter((at) => at >= from && at < to).length;

test('a schedule that answers in 250 ms keeps 5 callers at the fleet’s rate: requests are pipelined, not one per round trip', async () => {
  const { schedule, seen } = slowSchedule(100, 250);
  const sent = await closedLoop(schedule, 5, 20, 5000);
  // 100/s from the second second on (the first round trips find how much this process spends).
  // One request at a time for the calls waiting (0.4) sent 30 in these 3 s.
  expect(between(sent, 2000, 5000)).toBeGreaterThanOrEqual(290);
  // Send times that came back already due are spent at once: a few above the rate, no more.
  expect(between(sent, 2000, 5000)).toBeLessThanOrEqual(306);
  // Requests pipelined (one every 25 ms at most while calls wait), not one round trip per call.
  expect(seen.takes).toBeLessThanOrEqual(5000 / 25 + 1);
});

test('a fast schedule still paces at its rate', async () => {
  const { schedule } = slowSchedule(50, 2);
  const sent = await closedLoop(schedule, 5, 20, 4000);
  expect(between(sent, 1000, 4000)).toBeGreaterThanOrEqual(148);
  expect(between(sent, 1000, 4000)).toBeLessThanOrEqual(152);
});

describe('the send times a process holds', () => {
  test('a cut heard late keeps only its share of the times booked at the old rate, evenly', () => {
    const slots = new HeldSlots();
    slots.add([0, 10, 20, 30, 40, 50, 60, 70, 80, 90], 100);
    slots.slower(50);
    const kept: number[] = [];
    for (let t = slots.next(-Infinity); t !== undefined; t = slots.next(-Infinity)) {
      kept.push(t);
      slots.use(t);
    }
    expect(kept).toEqual([10, 30, 50, 70, 90]);
  });

  test('a raise keeps every time held; what a process will spend ahead follows its last round trip', () => {
    const slots = new HeldSlots();
    slots.add([0, 10, 20], 50);
    slots.slower(100);
    expect(slots.length).toBe(3);
    for (const at of [0, 10, 20]) slots.use(at);
    // 3 spent in the last 200 ms: twice that for the next 200; the window is as long as what is asked for.
    expect(slots.aheadFor(200, 20)).toBe(6);
    expect(slots.aheadFor(400, 20)).toBe(6);
    expect(slots.aheadFor(200, 500)).toBe(0);
  });
});
