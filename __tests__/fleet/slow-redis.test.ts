import axios from 'axios';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { delayProxy } from './delay-proxy';
import type { DelayProxy } from './delay-proxy';
import { retryPlugin } from '../../lib';
import type { StoreEvent } from '../../lib';
import { redisRateLimitStore } from '../../lib/redis';
import { connect, ready, startRedis } from './redis';
import type { RedisServer } from './redis';
import { closeServer, runWorkers, waitUntil } from './workers';

// The fleet's rate limiter on a Redis that answers late (a TCP proxy on 127.0.0.1 delays every
// chunk each way), and on one that is gone. One Redis server even when the suite runs on a
// cluster: the proxy stands for one node.
let redisPort: number;
let ownRedis: RedisServer | undefined;
let proxy: DelayProxy;
beforeAll(async () => {
  const fromCi = Number(process.env.REDIS_PORT);
  if (Number.isInteger(fromCi) && fromCi > 0 && process.env.REDIS_CLUSTER_PORTS === undefined) redisPort = fromCi;
  else redisPort = (ownRedis = await startRedis()).port;
}, 60_000);
beforeEach(async () => {
  proxy = await delayProxy(redisPort, 100);
});
afterEach(async () => proxy.close());
afterAll(async () => ownRedis?.kill());

const prefix = () => `slowredis:${process.pid}:${Math.random().toString(36).slice(2)}:`;

/** A token bucket of `rate` requests/s (burst `burst`), answering 429 with no hint over it, 10 ms late. */
async function tokenBucket(rate: number, burst: number) {
  let tokens = burst;
  let filledAt = Date.now();
  const counts = { requests: 0, throttled: 0 };
  const server = http.createServer((_req, res) => {
    const now = Date.now();
    tokens = Math.min(burst, tokens + ((now - filledAt) * rate) / 1000);
    filledAt = now;
    const ok = tokens >= 1;
    if (ok) tokens -= 1;
    counts.requests++;
    if (!ok) counts.throttled++;
    setTimeout(() => res.writeHead(ok ? 200 : 429).end(), 10);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () => closeServer(server),
  };
}

interface WorkerResult {
  ok: number;
  failed: number;
  storeEvents: string[];
}

describe('a Redis that answers 200 ms late', () => {
  const run = async (timeoutMs: number | undefined) => {
    const server = await tokenBucket(50, 5);
    try {
      const job = { redisTarget: { port: proxy.port }, url: server.url, callers: 10, runMs: 3000, shared: true };
      const results = await runWorkers<WorkerResult>('rate-worker.ts', 2, { ...job, prefix: prefix(), timeoutMs });
      return { results, counts: { ...server.counts } };
    } finally {
      await server.close();
    }
  };

  test('keeps two processes on the shared schedule: no store event, no failed call', async () => {
    const { results, counts } = await run(undefined);
    console.log(`slow redis, shared: ${JSON.stringify({ results, counts })}`);
    expect(results.map((r) => r.storeEvents)).toEqual([[], []]);
    expect(results.map((r) => r.failed)).toEqual([0, 0]);
    // They called, and were paced: at most the bucket's 150 tokens and 5 of burst reached it as successes.
    const ok = results.reduce((sum, r) => sum + r.ok, 0);
    expect(ok).toBeGreaterThan(0);
    expect(counts.requests - counts.throttled).toBeLessThanOrEqual(50 * 3.5 + 5);
  }, 30_000);

  test('with the 0.4 timeout of 100 ms, each process left the fleet for its own limiter (the defect fixed)', async () => {
    const { results } = await run(100);
    expect(results.map((r) => r.storeEvents.includes('store-down'))).toEqual([true, true]);
    expect(results.map((r) => r.failed)).toEqual([0, 0]);
  }, 30_000);
});

/** An origin that answers 429 (with a 1 ms wait: a hint, so it engages at once) to the next `n` requests after `throttleNext(n)`, 200 otherwise. */
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
    throttleNext: (n: number) => void (toThrottle = n),
    close: () => closeServer(server),
  };
}

/** One process whose limiter the fleet engaged through the slow proxy; `timeoutMs` for its store. */
async function engagedThroughProxy(timeoutMs?: number) {
  const redis = connect(proxy.port);
  await ready(redis);
  const server = await throttlingOrigin();
  const keyPrefix = prefix();
  const events: StoreEvent[] = [];
  const shared = redisRateLimitStore(redis, {
    prefix: keyPrefix,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    onStoreEvent: (event) => void events.push(event),
  });
  const plugin = retryPlugin({ breaker: false, random: () => 0, rateLimit: { shared } });
  const client = axios.create({ httpAgent: new http.Agent({ keepAlive: true }) });
  plugin.install(client);
  server.throttleNext(1);
  expect((await client.get(`${server.url}/r`)).status).toBe(200);
  expect(plugin.limiter(`${server.url}/r`)?.state).toBe('on');
  const calls = async (n: number) =>
    (await Promise.all(Array.from({ length: n }, () => client.get(`${server.url}/r`)))).map((r) => r.status);
  const close = async () => {
    await plugin.close();
    (client.defaults.httpAgent as http.Agent).destroy();
    redis.disconnect();
    await server.close();
  };
  return { redis, server, keyPrefix, events, calls, close };
}

describe('a Redis that is gone', () => {
  test('slow, the process stays shared; its connection closed and refused, it paces alone, told once', async () => {
    const p = await engagedThroughProxy();
    try {
      // 200 ms answers: shared. The fleet's state is in Redis, and no event.
      expect(await p.calls(10)).toEqual(Array(10).fill(200));
      expect(await p.redis.exists(`${p.keyPrefix}rate:${p.server.url} GET /r`)).toBe(1);
      expect(p.events).toEqual([]);
      // Gone: the proxy drops its connections and refuses new ones.
      const closed = new Promise((resolve) => p.redis.once('close', resolve));
      await proxy.close();
      await closed;
      expect(await p.calls(10)).toEqual(Array(10).fill(200));
      expect(p.events.map((e) => e.type)).toEqual(['store-down']);
      // Every call was sent once: the one 429, and no call refused or sent twice.
      expect(p.server.counts).toEqual({ requests: 22, throttled: 1 });
    } finally {
      await p.close();
    }
  }, 30_000);

  test('no answer within timeoutMs (a Redis that hangs): it paces alone, told once, and neither a call nor close() hangs', async () => {
    const p = await engagedThroughProxy(500);
    try {
      // Answers now take a minute each way: the connection stays open, and nothing comes back.
      proxy.setDelay(60_000);
      expect(await p.calls(10)).toEqual(Array(10).fill(200));
      expect(p.events.map((e) => e.type)).toEqual(['store-down']);
      expect(p.server.counts).toEqual({ requests: 12, throttled: 1 });
      // plugin.close() returns though Redis answers nothing (its subscriber's QUIT is given up on).
      const began = Date.now();
      await p.close();
      expect(Date.now() - began).toBeLessThan(10_000);
    } finally {
      proxy.cut();
      await p.close();
    }
  }, 30_000);
});

test('the proxy delays what Redis answers: a PING takes two legs', async () => {
  const redis = connect(proxy.port);
  try {
    await ready(redis);
    const began = Date.now();
    await redis.ping();
    expect(Date.now() - began).toBeGreaterThanOrEqual(195);
    await waitUntil('ping again', async () => (await redis.ping()) === 'PONG');
  } finally {
    redis.disconnect();
  }
});
