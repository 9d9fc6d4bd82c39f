import axios from 'axios';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { retryPlugin } from '../../lib';
import type { StoreEvent } from '../../lib';
import { redisRateLimitStore } from '../../lib/redis';
import { connect, ready, sharedRedis, startRedis, subscribers } from './redis';
import { LEFT_AT, closeServer, runWorkers, waitUntil } from './workers';
import type { RedisTarget } from './redis';

// Processes calling one rate-limited API, their limiters shared through Redis (or a Redis Cluster
// when REDIS_CLUSTER_PORTS names one).
let redisTarget: RedisTarget;
let stopRedis: () => Promise<void>;
beforeAll(async () => {
  ({ target: redisTarget, stop: stopRedis } = await sharedRedis());
}, 60_000);
afterAll(async () => stopRedis());

const prefix = () => `rlfleet:${process.pid}:${Math.random().toString(36).slice(2)}:`;

/**
 * A token bucket of `rate` requests/s (burst `burst`), 10 ms of latency, answering 429 with no
 * hint over the limit (the case where the fleet must find the limit by probing). Counts requests
 * and 429s, in all and in the steady window.
 *
 * It judges each attempt at the time it left its turn in its process (the worker's header), not at
 * its arrival: what the fleet's pacing decides, not how a busy machine delivers it. Beside four
 * busy loops, attempts sent on time reached the server bunched, and 5-10 % of them were refused by
 * arrival (3 runs of 3 over the 4 % bound; 1.3-3.3 % with two loops). An attempt that left a moment
 * before the last one judged (another process's) adds no tokens.
 */
async function tokenBucket(rate: number, burst: number) {
  let tokens = burst;
  let filledAt = Date.now();
  let steadyFrom = Infinity;
  let steadyUntil = Infinity;
  const counts = { requests: 0, throttled: 0, steadyRequests: 0, steadyThrottled: 0 };
  const server = http.createServer((req, res) => {
    const now = Number(req.headers[LEFT_AT]);
    tokens = Math.min(burst, tokens + (Math.max(0, now - filledAt) * rate) / 1000);
    filledAt = Math.max(filledAt, now);
    const ok = tokens >= 1;
    if (ok) tokens -= 1;
    counts.requests++;
    if (!ok) counts.throttled++;
    if (now >= steadyFrom && now < steadyUntil) {
      counts.steadyRequests++;
      if (!ok) counts.steadyThrottled++;
    }
    setTimeout(() => res.writeHead(ok ? 200 : 429).end(), 10);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    /** Counts "steady" from `steadyAfterMs` on, for `steadyForMs`. */
    start(steadyAfterMs: number, steadyForMs = Infinity) {
      tokens = burst;
      filledAt = Date.now();
      steadyFrom = Date.now() + steadyAfterMs;
      steadyUntil = steadyFrom + steadyForMs;
    },
    close: () => closeServer(server),
  };
}

interface WorkerResult {
  ok: number;
  failed: number;
  storeEvents: string[];
}

/** Starts `count` rate-limit workers, releases them together, and collects their results. */
const fleet = (count: number, job: Record<string, unknown>, go: () => void): Promise<WorkerResult[]> =>
  runWorkers<WorkerResult>('rate-worker.ts', count, job, go);

describe('a rate limiter shared through Redis', () => {
  const WORKERS = 4;
  const RATE = 100;
  const RUN_MS = 5000;
  const STEADY_AFTER_MS = 1500;
  const STEADY_MS = 3000;

  test('4 processes calling one token bucket stay under its limit together: no failed call, few 429s', async () => {
    const server = await tokenBucket(RATE, 10);
    try {
      const job = { redisTarget, url: server.url, callers: 10, runMs: RUN_MS, shared: true, prefix: prefix() };
      const results = await fleet(WORKERS, job, () => server.start(STEADY_AFTER_MS, STEADY_MS));
      const ok = results.reduce((sum, r) => sum + r.ok, 0);
      const failed = results.reduce((sum, r) => sum + r.failed, 0);
      const { steadyRequests, steadyThrottled, requests, throttled } = server.counts;
      const share = steadyThrottled / Math.max(1, steadyRequests);
      const goodput = (steadyRequests - steadyThrottled) / (STEADY_MS / 1000) / RATE;
      // The figures docs/fleet.md quotes.
      console.log(
        `rate-limit fleet: ${JSON.stringify({ ok, failed, requests, throttled, steadyRequests, steadyThrottled, share, goodput })}`,
      );
      expect(failed).toBe(0);
      // Bounds from the spread on the 2-core machine with two CPU-bound loops beside the test (72 runs, one
      // Redis and a 3-master cluster): shared, 4-10 429s of ~310 steady requests (1.3-3.3 %, mean 2.2 %);
      // each process pacing alone (the fleet probing once per process), 14-25 (4.5-7.6 %, 16 runs). 4 %
      // sits between: two 429s above the most seen shared, and under the fewest seen pacing alone.
      expect(share).toBeLessThanOrEqual(0.04);
      // The fleet still uses the limit: 0.97-1.03 in those runs; the floor leaves room for a slower machine.
      expect(goodput).toBeGreaterThan(0.7);
      // Every process kept asking Redis: none paced alone.
      expect(results.map((r) => r.storeEvents)).toEqual(results.map(() => []));
    } finally {
      await server.close();
    }
  }, 30_000);
});

describe('a process that never saw a 429', () => {
  test("turns its limiter on when another process's first throttle engages the fleet, and sends nothing for it", async () => {
    let received = 0;
    const server = http.createServer((_req, res) => {
      received++;
      // A throttle with a hint (a short wait): it engages at once, where a bare 429 is first weighed.
      res.writeHead(received === 1 ? 429 : 200, received === 1 ? { 'retry-after-ms': '1' } : {}).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const keyPrefix = prefix();
    const clients = [connect(redisTarget), connect(redisTarget)];
    await Promise.all(clients.map((c) => ready(c)));
    const engagedInB: string[] = [];
    const [a, b] = clients.map((redis, i) =>
      retryPlugin({
        breaker: false,
        random: () => 0,
        rateLimit: { shared: redisRateLimitStore(redis, { prefix: keyPrefix, timeoutMs: 2000 }) },
        ...(i === 1 ? { onRateLimit: (event) => void engagedInB.push(`${event.origin} ${event.state}`) } : {}),
      }),
    );
    const http0 = axios.create();
    a!.install(http0);
    try {
      // Each plugin subscribes to the fleet's channel when it is made: A's throttle is announced once both listen.
      await waitUntil(
        'both plugins subscribed',
        async () => (await subscribers(clients[0]!, `${keyPrefix}rate`)) === 2,
      );
      expect(b!.limiter(url)).toBeUndefined();
      await http0.get(url); // A: a 429, then its retry succeeds
      expect(received).toBe(2);
      await waitUntil("B's limiter on", () => b!.limiter(url)?.state === 'on');
      expect(engagedInB).toEqual([`${url} engaged`]);
      expect(received).toBe(2);
    } finally {
      await Promise.all([a!.close(), b!.close()]);
      clients.forEach((c) => c.disconnect());
      await closeServer(server);
    }
  }, 20_000);
});

/**
 * An origin that throttles on demand: it answers 429 (with a hint, a 1 ms wait: it engages the limiter
 * at once) to the next `n` requests after `throttleNext(n)`, 200 otherwise, and counts both. The test
 * decides when a throttle comes, whatever the machine's speed.
 */
async function throttlingOrigin() {
  let toThrottle = 0;
  const counts = { requests: 0, throttled: 0 };
  const server = http.createServer((_req, res) => {
    counts.requests++;
    const refuse = toThrottle > 0;
    if (refuse) {
      toThrottle--;
      counts.throttled++;
    }
    res.writeHead(refuse ? 429 : 200, refuse ? { 'retry-after-ms': '1' } : {}).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    throttleNext(n: number) {
      toThrottle = n;
    },
    close: () => closeServer(server),
  };
}

/** Rejects with `message` if `work` has not settled within `ms`: a hang fails with a reason, not at the test's timeout. */
async function within<T>(ms: number, message: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('when the rate limiter’s Redis goes away', () => {
  test('calls keep succeeding under the local limiter, the store event is reported, nothing hangs', async () => {
    const redisServer = await startRedis();
    const redis = connect(redisServer.port);
    await ready(redis);
    const server = await throttlingOrigin();
    const keyPrefix = prefix();
    const events: StoreEvent[] = [];
    const shared = redisRateLimitStore(redis, {
      prefix: keyPrefix,
      timeoutMs: 100,
      onStoreEvent: (event) => void events.push(event),
    });
    const plugin = retryPlugin({ breaker: false, random: () => 0, rateLimit: { shared } });
    const client = axios.create({ httpAgent: new http.Agent({ keepAlive: true }) });
    plugin.install(client);
    try {
      // Shared: one 429 engages the fleet's limiter in Redis, and the retry goes at a send time Redis granted.
      server.throttleNext(1);
      expect((await client.get(`${server.url}/r`)).status).toBe(200);
      expect(server.counts).toEqual({ requests: 2, throttled: 1 });
      expect(plugin.limiter(`${server.url}/r`)?.state).toBe('on');
      expect(await redis.exists(`${keyPrefix}rate:${server.url} GET /r`)).toBe(1);
      expect(events).toEqual([]);

      // Redis dies, and the client knows it (its socket closed) before the calls: each finds the store unusable.
      const closed = new Promise((resolve) => redis.once('close', resolve));
      await redisServer.kill();
      await closed;
      // 20 calls ask for a turn at once. The limiter is on, so they queue; with Redis gone only the local
      // limiter can release them. Its queue is sampled at every turn of the event loop until they are done.
      const calls = Promise.all(Array.from({ length: 20 }, () => client.get(`${server.url}/r`)));
      let done = false;
      let mostQueued = 0;
      void calls.finally(() => (done = true)).catch(() => undefined);
      const sampled = (async () => {
        while (!done) {
          mostQueued = Math.max(mostQueued, plugin.limiter(`${server.url}/r`)?.queued ?? 0);
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      // At the local limiter's 20/s seed rate (doubling each 100 ms while calls queue) they need well under
      // a second; 10 s only tells a hang (calls left waiting for a store that will not answer) from a slow machine.
      const second = await within(10_000, 'calls still waiting 10 s after Redis went away', calls);
      await sampled;
      expect(second.map((r) => r.status)).toEqual(second.map(() => 200));
      // Paced, not let through: at most two go at once (one interval of credit), the rest waited their turn.
      expect(mostQueued).toBeGreaterThanOrEqual(10);
      // Each call sent once: nothing was refused, and nothing was sent twice.
      expect(server.counts).toEqual({ requests: 22, throttled: 1 });
      expect(events.map((e) => e.type)).toEqual(['store-down']);
      expect(plugin.limiter(`${server.url}/r`)?.state).toBe('on');
    } finally {
      await plugin.close();
      (client.defaults.httpAgent as http.Agent).destroy();
      redis.disconnect();
      await server.close();
      await redisServer.kill();
    }
  }, 30_000);
});
