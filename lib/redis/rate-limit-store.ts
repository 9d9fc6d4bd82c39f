import { RATE_RULE } from '../guards/rate-state';
import { StoreHealth, warnOnce } from '../guards/store-health';
import type { RateLimitSchedule, RateLimitStore, StoreEvent } from '../types';
import { isReady, listen, Script, selfId } from './client';
import { takeArgs, TAKE_SCRIPT, throttleArgs, THROTTLE_SCRIPT } from './rate-rule-script';
import { RoundTrips } from './round-trips';
import { SharedPacing } from './shared-pacing';
import type { RedisClient } from './client';

/**
 * How far ahead one request may book the fleet's schedule (ms). Send times booked before a cut go
 * out at the old rate, and a raise reaches the server only when the times booked at it come up: the
 * fleet's reaction lags the local limiter's by up to this much. On the bench (4 processes, 100/s,
 * 200 callers), 200 ms gave 3.4–9.6 % 429s in steady state, 100 ms 0.9–4.8 %, 50 ms 0.9–2.0 %
 * (docs/fleet.md). A process whose waiting calls need more asks again when half of it has room
 * (`retryAt`): about 50 script calls a second per busy process. A slow store keeps the horizon:
 * its processes pipeline their requests instead (`SharedPacing`).
 */
export const HORIZON_MS = RATE_RULE.stepMs / 2;

/**
 * The default `timeoutMs`: far above any Redis that is merely slow (a far region, a busy host:
 * 100–300 ms), and short enough that calls waiting for send times are not held long by one that hangs.
 */
const GONE_AFTER_MS = 2000;

export interface RedisRateLimitStoreOptions {
  /**
   * Prefix of the Redis keys; processes that should share their rate limiters use the same one.
   * @default 'axios-resilience:'
   */
  prefix?: string;
  /**
   * How long a Redis command may go unanswered before the store counts as gone and each process
   * paces by its own limiter, in ms. A slower answer keeps the fleet on its shared schedule (each
   * process keeps a round trip's worth of requests in flight), so a Redis that answers in 100–300 ms
   * still paces the fleet as one. A closed or refused connection counts as gone at once.
   * @default 2000
   */
  timeoutMs?: number;
  /**
   * Told once when Redis fails, and once when it answers again.
   * @default a console.warn line
   */
  onStoreEvent?: (event: StoreEvent) => void;
}

/**
 * A `RateLimitStore` on Redis: `retryPlugin({ rateLimit: { shared: redisRateLimitStore(redis) } })`.
 * It is also the `RateLimitSchedule` its pacing asks (`take`, `throttle`).
 * Each origin's limiter keeps one schedule for the whole fleet: processes take send times from it
 * in batches (one script call per batch, by `EVALSHA`), report their successes with them, and a
 * throttle any process sees engages, cuts and pauses it for all. A slow Redis is waited for
 * (requests are pipelined); only a gone one (its connection closed or refused, or no
 * answer within `timeoutMs`) makes each process pace by its own limiter until it answers again.
 */
export function redisRateLimitStore(
  client: RedisClient,
  options: RedisRateLimitStoreOptions = {},
): RateLimitStore & RateLimitSchedule {
  const prefix = `${options.prefix ?? 'axios-resilience:'}rate:`;
  const health = new StoreHealth(
    options.timeoutMs ?? GONE_AFTER_MS,
    options.onStoreEvent ?? warnOnce('rate limit store', 'rate limiters pace per process'),
  );
  const take = new Script(client, TAKE_SCRIPT);
  const throttle = new Script(client, THROTTLE_SCRIPT);
  // Announces a fleet's engagement to the processes whose limiter is still off (as the breaker sync does).
  const channel = `${options.prefix ?? 'axios-resilience:'}rate`;
  const self = selfId();
  const roundTrips = new RoundTrips();
  /** The script's answer, its round trip counted (an answer, however late, says the store is there). */
  const ask = async (script: Script, key: string, args: Array<string | number>): Promise<unknown[]> => {
    const askedAt = Date.now();
    const reply = (await health.ask(script.run([prefix + key], args))) as unknown[];
    roundTrips.add(Date.now() - askedAt);
    return reply;
  };
  let stopListening: (() => Promise<void>) | undefined;
  const store: RateLimitStore & RateLimitSchedule = {
    pacing: (key, now) => new SharedPacing(key, store, now),
    usable: () => health.usable(isReady(client)),
    async take(key, count, successes, policyRate) {
      let reply: unknown[];
      try {
        // A growth step is at least a round trip: the fleet hears the server that much later.
        reply = await ask(take, key, takeArgs({ successes, policyRate }, count, HORIZON_MS, roundTrips.longest()));
      } catch {
        return undefined;
      }
      // Numbers come as text (a Lua number Redis would cut to an integer) or as whole numbers.
      const [now, , granted, first, interval, retryAt, rate, paused, relaxAt] = reply.map(Number);
      const on = reply[1] === 'on';
      return {
        now: now!,
        state: on ? 'on' : 'off',
        granted: granted!,
        first: first!,
        intervalMs: interval!,
        retryAt: retryAt!,
        ratePerSecond: on ? rate! : Infinity,
        pausedUntil: paused!,
        relaxAt: relaxAt!,
      };
    },
    async throttle(key, report, successes) {
      // An attempt that was not paced has no send time the fleet could compare: "long ago".
      const ageMs = Math.min(report.ageMs, 1e9);
      // Send times granted before a cut reach the server up to the horizon and a round trip later.
      const graceMs = HORIZON_MS + roundTrips.longest();
      const args = throttleArgs({ successes, policyRate: report.policyRate }, { ...report, ageMs, graceMs });
      let reply: unknown[];
      try {
        reply = await ask(throttle, key, args);
      } catch {
        return undefined;
      }
      const [now, rate, paused, engaged] = reply.map(Number);
      if (engaged === 1) void client.publish(channel, JSON.stringify({ key, from: self })).catch(() => undefined);
      return { now: now!, ratePerSecond: rate!, pausedUntil: paused! };
    },
    start(engage) {
      stopListening = listen(client, channel, self, (note) => {
        if (typeof note.key === 'string') engage(note.key);
      });
    },
    async close() {
      await stopListening?.();
    },
  };
  return store;
}
