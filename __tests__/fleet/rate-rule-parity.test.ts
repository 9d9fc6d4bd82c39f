import fc from 'fast-check';
import type { Cluster, Redis } from 'ioredis';
import { take as takeComposed, throttle as throttleComposed } from '../../lib/guards/rate-rule';
import { RATE_RULE } from '../../lib/guards/rate-state';
import type { RateState } from '../../lib/guards/rate-state';
import { HORIZON_MS } from '../../lib/redis/rate-limit-store';
import { takeArgs, TAKE_SCRIPT, throttleArgs, THROTTLE_SCRIPT } from '../../lib/redis/rate-rule-script';
import { connect, ready, sharedRedis } from './redis';

// One rule, two runtimes: the TypeScript rule a process runs and the Lua script the fleet runs on
// Redis are fed the same events at the same (injected) times, and must hold the same state after
// each, to the bit, and grant the same send times.

let stopRedis: () => Promise<void>;
let client: Redis | Cluster;
beforeAll(async () => {
  const shared = await sharedRedis();
  stopRedis = shared.stop;
  client = connect(shared.target);
  await ready(client);
}, 60_000);
afterAll(async () => {
  client.disconnect();
  await stopRedis();
});

type Event =
  | {
      kind: 'take';
      gapMs: number;
      count: number;
      successes: number;
      policyRate: number | undefined;
      /** How late the asker hears the fleet (its round trip to the store): slow start grows per that. */
      lagMs?: number | undefined;
    }
  | {
      kind: 'throttle';
      gapMs: number;
      ageMs: number;
      pauseMs: number | undefined;
      successes: number;
      policyRate: number | undefined;
      /** Nothing but the status said it was a throttle: within the rule's noise share it cuts nothing. */
      hintless?: boolean | undefined;
      /** The rate the reporter's scope was served at before: an engaging fleet starts there. */
      startRate?: number | undefined;
    };

interface Booking {
  granted: number;
  first: number;
  intervalMs: number;
}

/** What the store's take script does: the rule's own composition, with the fleet's demand (bookings ahead). */
function ruleTake(state: RateState, now: number, e: Extract<Event, { kind: 'take' }>): [RateState, Booking] {
  const facts = { successes: e.successes, policyRate: e.policyRate, demand: state.nextAt > now, lagMs: e.lagMs };
  const booking = takeComposed(state, now, facts, e.count, HORIZON_MS);
  return [booking.state, { granted: booking.granted, first: booking.first, intervalMs: booking.intervalMs }];
}

/** What the store's throttle script does: the rule's own composition, with the fleet's grace (its horizon). */
function ruleThrottle(state: RateState | undefined, now: number, e: Extract<Event, { kind: 'throttle' }>): RateState {
  return throttleComposed(state, now, {
    sentAt: now - e.ageMs,
    pauseMs: e.pauseMs,
    graceMs: HORIZON_MS,
    hintless: e.hintless,
    successes: e.successes,
    policyRate: e.policyRate,
    startRate: e.startRate,
  });
}

/** The fleet's hash read back as a `RateState` (absent: the fleet is off). */
async function stored(key: string): Promise<RateState | undefined> {
  const hash = await client.hgetall(key);
  if (hash.ratePerSecond === undefined) return undefined;
  const n = (name: string) => Number(hash[name]);
  const lastStep = n('lastStep');
  const successes: number[] = [];
  const refusals: number[] = [];
  for (let step = lastStep - RATE_RULE.windowSteps + 1; step <= lastStep; step++) {
    successes.push(n(`b${step}`) || 0);
    refusals.push(n(`z${step}`) || 0);
  }
  // Only the window's buckets are kept.
  const buckets = Object.keys(hash).filter((name) => /^[bz]\d/.test(name));
  for (const name of buckets) expect(Number(name.slice(1))).toBeGreaterThan(lastStep - RATE_RULE.windowSteps);
  return {
    ratePerSecond: n('ratePerSecond'),
    nextAt: n('nextAt'),
    pausedUntil: n('pausedUntil'),
    pauseEndsAt: n('pauseEndsAt'),
    lastCutAt: n('lastCutAt'),
    capacity: n('capacity') < 0 ? undefined : n('capacity'),
    ceiling: n('ceiling') > 0 ? n('ceiling') : Infinity,
    stepAt: n('stepAt'),
    probeSteps: n('probeSteps'),
    gentle: n('gentle') === 1,
    engagedAt: n('engagedAt'),
    successes,
    refusals,
    lastStep,
  };
}

let keys = 0;
/** Runs the events through both and compares after each; the number of send times granted in all. */
async function agree(events: Event[], start = 1_700_000_000_000.5): Promise<number> {
  const key = `parity:${process.pid}:${++keys}:rate:https://api.example`;
  let now = start;
  let rule: RateState | undefined;
  let granted = 0;
  for (const [i, e] of events.entries()) {
    now += e.gapMs;
    const report = { clock: now, successes: e.successes, policyRate: e.policyRate };
    if (e.kind === 'throttle') {
      rule = ruleThrottle(rule, now, e);
      const args = throttleArgs(report, {
        ageMs: e.ageMs,
        pauseMs: e.pauseMs,
        graceMs: HORIZON_MS,
        hintless: e.hintless,
        startRate: e.startRate,
      });
      await client.eval(THROTTLE_SCRIPT, 1, key, ...args);
    } else {
      const reply = (await client.eval(
        TAKE_SCRIPT,
        1,
        key,
        ...takeArgs(report, e.count, HORIZON_MS, e.lagMs),
      )) as unknown[];
      if (rule === undefined) {
        expect(reply[1]).toBe('off');
        continue;
      }
      let booking: Booking;
      [rule, booking] = ruleTake(rule, now, e);
      const [, , scriptGranted, first, interval] = reply.map(Number);
      expect({ event: i, granted: scriptGranted, first, intervalMs: interval }).toEqual({ event: i, ...booking });
      granted += booking.granted;
    }
    expect({ event: i, state: await stored(key) }).toEqual({ event: i, state: rule });
  }
  await client.del(key);
  return granted;
}

const take = (gapMs: number, count = 20, successes = 0, policyRate?: number, lagMs?: number): Event => ({
  kind: 'take',
  gapMs,
  count,
  successes,
  policyRate,
  lagMs,
});
const throttle = (
  gapMs: number,
  ageMs: number,
  pauseMs?: number,
  policyRate?: number,
  successes = 0,
  hintless?: boolean,
): Event => ({
  kind: 'throttle',
  gapMs,
  ageMs,
  pauseMs,
  successes,
  policyRate,
  hintless,
});
/** A throttle with no hint (a bare 429), `successes` reported with it. */
const bare = (gapMs: number, successes = 0): Event => throttle(gapMs, 5, undefined, undefined, successes, true);

test('slow start, a cut on a measured capacity, closing on it, probing past it, and a pause that makes probing gentle', async () => {
  const events: Event[] = [throttle(0, 0)];
  // Slow start: demand above the rate for a second, successes reported with each take.
  for (let i = 0; i < 25; i++) events.push(take(40, 30, 3));
  // A throttle of an attempt sent after the cut: a cut on the measured second.
  events.push(throttle(10, 5));
  // The same burst's throttles cut nothing.
  events.push(throttle(1, 60), throttle(1, 80));
  // Closing on the capacity, then probing past it.
  for (let i = 0; i < 40; i++) events.push(take(35, 40, 4));
  // A server's pause (Retry-After: 1): gentle probing after it.
  events.push(throttle(20, 10, 1000));
  for (let i = 0; i < 60; i++) events.push(take(30, 40, 3));
  // A stated policy caps the rate.
  events.push(take(10, 10, 2, 12), throttle(150, 5, undefined, 12));
  for (let i = 0; i < 10; i++) events.push(take(60, 10, 1));
  expect(await agree(events)).toBeGreaterThan(100);
});

test('on a lagging store a growth step lasts a round trip: takes with different lags, a cut, then probing', async () => {
  const events: Event[] = [throttle(0, 0)];
  // Four processes whose round trips to the store differ (a slow Redis, one fast answer, none yet).
  const lags = [250, 310, 90, 0];
  for (let i = 0; i < 24; i++) events.push(take(40, 30, 2, undefined, lags[i % lags.length]));
  events.push(throttle(10, 5));
  for (let i = 0; i < 40; i++) events.push(take(35, 30, 3, undefined, lags[i % lags.length]));
  expect(await agree(events)).toBeGreaterThan(20);
});

test('throttles with no hint cut nothing within the noise share of the answers since the cut, and cut past it', async () => {
  const events: Event[] = [bare(0)];
  // Slow start, then a cut on the measured successes (a bare throttle in slow start cuts as any does).
  for (let i = 0; i < 6; i++) events.push(take(40, 30, 5));
  events.push(bare(10));
  // 150 answers since the cut: the first bare throttles are within 2 % of them.
  for (let i = 0; i < 30; i++) events.push(take(40, 20, 5));
  events.push(bare(5), bare(5, 2), bare(5), bare(5));
  // A burst of them passes it: one cut; and a throttle with a hint cuts at once after it.
  for (let i = 0; i < 6; i++) events.push(bare(1));
  for (let i = 0; i < 10; i++) events.push(take(40, 20, 5));
  events.push(throttle(5, 5, 50));
  for (let i = 0; i < 10; i++) events.push(take(40, 20, 5));
  await agree(events);
});

test('a fleet engaged at the rate a process saw its scope served at (above the seed rate), then cut', async () => {
  const events: Event[] = [{ ...throttle(0, 0), startRate: 450 } as Event];
  for (let i = 0; i < 12; i++) events.push(take(40, 30, 15));
  events.push(throttle(10, 5));
  for (let i = 0; i < 10; i++) events.push(take(40, 30, 15));
  // A start rate below the seed rate starts in slow start, as none does.
  events.push(...[{ ...throttle(10_000, 0), startRate: 3 } as Event]);
  await agree(events);
});

test('a fleet engaged under a policy, and at the lowest rate', async () => {
  const events: Event[] = [throttle(0, 0, 400, 5)];
  for (let i = 0; i < 10; i++) events.push(take(90, 5, 1));
  events.push(throttle(300, 0), throttle(300, 0), throttle(300, 0), throttle(300, 0));
  for (let i = 0; i < 10; i++) events.push(take(250, 3, 0));
  await agree(events);
});

test('any sequence of takes and throttles leaves the script and the rule in the same state', async () => {
  const gap = fc.oneof(fc.integer({ min: 0, max: 400 }), fc.double({ min: 0, max: 400, noNaN: true }));
  const policy = fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined, freq: 6 });
  const event = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('take' as const),
        gapMs: gap,
        count: fc.integer({ min: 1, max: 60 }),
        successes: fc.integer({ min: 0, max: 30 }),
        policyRate: policy,
        lagMs: fc.option(fc.oneof(fc.integer({ min: 0, max: 400 }), fc.double({ min: 0, max: 400, noNaN: true })), {
          nil: undefined,
        }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('throttle' as const),
        gapMs: gap,
        ageMs: fc.integer({ min: 0, max: 500 }),
        pauseMs: fc.option(fc.integer({ min: 1, max: 3000 }), { nil: undefined }),
        successes: fc.integer({ min: 0, max: 30 }),
        policyRate: policy,
        hintless: fc.option(fc.boolean(), { nil: undefined }),
        startRate: fc.option(fc.integer({ min: 1, max: 900 }), { nil: undefined }),
      }),
    },
  );
  await fc.assert(
    fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 60 }), async (events) => {
      await agree(events);
    }),
    { numRuns: 60, seed: 20261205 },
  );
}, 60_000);
