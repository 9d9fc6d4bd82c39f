import axios from 'axios';
import type { AxiosError } from 'axios';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CircuitOpenError, RetryBudget, retryPlugin } from '../../lib';
import type { CircuitStateChange } from '../../lib';
import { redisBreakerSync, redisBudgetStore } from '../../lib/redis';
import { connect, ready, sharedRedis, startRedis, subscribers } from './redis';
import { closeServer, runWorkers, waitUntil } from './workers';
import type { RedisTarget } from './redis';

// One Redis, or a Redis Cluster when REDIS_CLUSTER_PORTS names one: the same tests hold on both.
let redisTarget: RedisTarget;
let stopRedis: () => Promise<void>;
beforeAll(async () => {
  ({ target: redisTarget, stop: stopRedis } = await sharedRedis());
});
afterAll(async () => stopRedis());

const prefix = () => `test:${process.pid}:${Math.random().toString(36).slice(2)}:`;

/** A local origin answering by `status(n)` for its n-th request; counts what it received. */
async function origin(status: (n: number) => number) {
  let received = 0;
  const server = http.createServer((_req, res) => {
    received++;
    res.writeHead(status(received)).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => received,
    close: () => closeServer(server),
  };
}

interface WorkerResult {
  attempts: number;
  /** The budget store's health events in that process: none while the store kept answering. */
  storeEvents: string[];
}

/** Starts `count` workers, releases them together, and collects their results. */
const fleet = (count: number, job: Record<string, unknown>): Promise<WorkerResult[]> =>
  runWorkers<WorkerResult>('worker.ts', count, job);

describe('a retry budget shared through Redis', () => {
  const WORKERS = 8;
  const CALLS = 30; // per worker
  const FIRST_ATTEMPTS = WORKERS * CALLS;
  const FLOOR = 1 * 10; // minPerSecond × windowMs / 1000
  const figures: Record<string, number> = {};

  afterAll(() => {
    // The figures docs/fleet.md quotes.
    console.log(`fleet budget figures: ${JSON.stringify(figures)}`);
  });

  test('8 processes sharing one budget stay within ratio × requests + one floor', async () => {
    const server = await origin(() => 503);
    try {
      const results = await fleet(WORKERS, {
        redisTarget,
        url: server.url,
        calls: CALLS,
        shared: true,
        prefix: prefix(),
      });
      const retries = server.received() - FIRST_ATTEMPTS;
      figures.sharedRetries = retries;
      expect(results.reduce((sum, r) => sum + r.attempts, 0)).toBe(server.received());
      // The bound holds while the store answers; a process that fell back to its local budget says so.
      expect(results.flatMap((r) => r.storeEvents)).toEqual([]);
      expect(retries).toBeLessThanOrEqual(0.1 * FIRST_ATTEMPTS + FLOOR); // 34
      expect(retries).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  }, 60_000);

  test('the same fleet with per-process budgets gets a floor each: eight floors', async () => {
    const server = await origin(() => 503);
    try {
      await fleet(WORKERS, { redisTarget, url: server.url, calls: CALLS, shared: false, prefix: prefix() });
      const retries = server.received() - FIRST_ATTEMPTS;
      figures.perProcessRetries = retries;
      // Each process: 0.1 × 30 + 10 = 13 retries; eight of them.
      expect(retries).toBe(WORKERS * (0.1 * CALLS + FLOOR));
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('breaker state shared through Redis', () => {
  test('when another process opens its breaker, this one opens within the propagation bound and sends nothing', async () => {
    const server = await origin(() => 503);
    const redis = connect(redisTarget);
    await ready(redis);
    const changes: Array<CircuitStateChange & { at: number }> = [];
    const channelPrefix = prefix();
    const plugin = retryPlugin({
      retries: 0,
      budget: false,
      breaker: { volumeThreshold: 5, resetTimeout: 60_000, shared: redisBreakerSync(redis, { prefix: channelPrefix }) },
      onCircuitStateChange: (change) => void changes.push({ ...change, at: Date.now() }),
    });
    const client = axios.create();
    plugin.install(client);
    try {
      // This process listens on the fleet's channel before the other one speaks.
      await waitUntil('subscribed', async () => (await subscribers(redis, `${channelPrefix}breaker`)) === 1);
      const script = `
        const axios = require('axios');
        const { retryPlugin } = require(${JSON.stringify(path.join(__dirname, '../../lib'))});
        const { redisBreakerSync } = require(${JSON.stringify(path.join(__dirname, '../../lib/redis'))});
        const { connect, ready } = require(${JSON.stringify(path.join(__dirname, 'redis.ts'))});
        (async () => {
          const redis = connect(${JSON.stringify(redisTarget)});
          await ready(redis);
          let openedAt = 0;
          const plugin = retryPlugin({ retries: 0, budget: false,
            breaker: { volumeThreshold: 5, resetTimeout: 60000, shared: redisBreakerSync(redis, { prefix: ${JSON.stringify(channelPrefix)} }) },
            onCircuitStateChange: ({ state }) => { if (state === 'open') openedAt = Date.now(); } });
          const client = axios.create();
          plugin.install(client);
          for (let i = 0; i < 5; i++) await client.get(${JSON.stringify(server.url)} + '/r').catch(() => undefined);
          await new Promise((r) => setTimeout(r, 50));
          await plugin.close();
          redis.disconnect();
          console.log(JSON.stringify({ openedAt }));
        })();`;
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
        child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`child exited with ${code}`))));
      });
      const { openedAt } = JSON.parse(out) as { openedAt: number };
      expect(openedAt).toBeGreaterThan(0);
      const opened = changes.find((c) => c.state === 'open');
      expect(opened).toBeDefined();
      const lagMs = opened!.at - openedAt;
      console.log(`breaker open propagated to the other process in ${lagMs} ms`);
      expect(lagMs).toBeLessThan(100);
      const before = server.received();
      expect(before).toBe(5);
      const error = await client.get(`${server.url}/r`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CircuitOpenError);
      expect(server.received()).toBe(before);
    } finally {
      await plugin.close();
      redis.disconnect();
      await server.close();
    }
  }, 60_000);

  test('a half-open probe is one per fleet, and its success closes every breaker', async () => {
    let healthy = false;
    const server = await origin(() => (healthy ? 200 : 503));
    const channelPrefix = prefix();
    const members = await Promise.all(
      [0, 1].map(async () => {
        const redis = connect(redisTarget);
        await ready(redis);
        const states: string[] = [];
        const plugin = retryPlugin({
          retries: 0,
          budget: false,
          // 0.5: the open-state wait is exactly resetTimeout (its ±25 % jitter at the middle).
          random: () => 0.5,
          breaker: {
            volumeThreshold: 5,
            resetTimeout: 300,
            shared: redisBreakerSync(redis, { prefix: channelPrefix }),
          },
          onCircuitStateChange: ({ state }) => void states.push(state),
        });
        const client = axios.create();
        plugin.install(client);
        return { redis, plugin, client, states };
      }),
    );
    const [a, b] = members as [(typeof members)[0], (typeof members)[0]];
    try {
      // Both listen on the fleet's channel before A's breaker opens.
      await waitUntil('both subscribed', async () => (await subscribers(a.redis, `${channelPrefix}breaker`)) === 2);
      for (let i = 0; i < 5; i++) await a.client.get(`${server.url}/r`).catch(() => undefined);
      await waitUntil("B's breaker open", () => b.states.includes('open'));
      expect(a.states).toEqual(['open']);
      expect(b.states).toEqual(['open']);
      healthy = true;
      await new Promise((resolve) => setTimeout(resolve, 350)); // both go half-open
      const sentBefore = server.received();
      const results = await Promise.allSettled([a.client.get(`${server.url}/r`), b.client.get(`${server.url}/r`)]);
      expect(server.received() - sentBefore).toBe(1);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(CircuitOpenError);
      await waitUntil('both closed', () => a.states.at(-1) === 'closed' && b.states.at(-1) === 'closed');
      expect(a.states.at(-1)).toBe('closed');
      expect(b.states.at(-1)).toBe('closed');
      expect((await b.client.get(`${server.url}/r`)).status).toBe(200);
    } finally {
      for (const m of members) {
        await m.plugin.close();
        m.redis.disconnect();
      }
      await server.close();
    }
  }, 30_000);
});

describe('when Redis goes away', () => {
  test('calls keep succeeding on the local budget, nothing hangs, and the budget is shared again when Redis returns', async () => {
    const own = await startRedis();
    // Every call's first attempt gets a 503, its retry a 200: each call needs one budget grant.
    const server = await origin((n) => (n % 2 === 1 ? 503 : 200));
    const redis = connect(own.port);
    await ready(redis);
    const events: string[] = [];
    const budget = new RetryBudget({
      ratio: 1,
      minPerSecond: 100,
      store: redisBudgetStore(redis, { prefix: prefix() }),
      onStoreEvent: (e) => void events.push(e.type),
    });
    const plugin = retryPlugin({ budget, breaker: false, random: () => 0 });
    const client = axios.create();
    plugin.install(client);
    const timedCall = async () => {
      const started = Date.now();
      const response = await client.get(`${server.url}/r`);
      return { status: response.status, ms: Date.now() - started, attempts: response.config.retryState?.attempts };
    };
    try {
      const before = await timedCall();
      expect(before).toMatchObject({ status: 200, attempts: 2 });
      expect(budget.state().mode).toBe('shared');

      await own.kill();
      const during = [];
      for (let i = 0; i < 20; i++) during.push(await timedCall());
      expect(during.every((c) => c.status === 200 && c.attempts === 2)).toBe(true);
      expect(Math.max(...during.map((c) => c.ms))).toBeLessThan(1000);
      expect(budget.state().mode).toBe('local');
      expect(events).toEqual(['store-down']);
      console.log(`with Redis down: 20 calls, slowest ${Math.max(...during.map((c) => c.ms))} ms`);

      const back = await startRedis(own.port);
      const restartedAt = Date.now();
      try {
        await ready(redis);
        let mode = budget.state().mode;
        for (let i = 0; i < 60 && mode !== 'shared'; i++) {
          await timedCall();
          await new Promise((resolve) => setTimeout(resolve, 50));
          mode = budget.state().mode;
        }
        expect(mode).toBe('shared');
        expect(events).toEqual(['store-down', 'store-up']);
        console.log(`budget shared again ${Date.now() - restartedAt} ms after Redis came back`);
      } finally {
        await plugin.close();
        redis.disconnect();
        await back.kill();
      }
    } finally {
      await server.close();
      await own.kill();
    }
  }, 30_000);

  test('a breaker sync whose Redis is gone leaves each process deciding alone', async () => {
    const own = await startRedis();
    const redis = connect(own.port);
    await ready(redis);
    const server = await origin(() => 503);
    const plugin = retryPlugin({
      retries: 0,
      budget: false,
      random: () => 0.5,
      breaker: {
        volumeThreshold: 3,
        resetTimeout: 200,
        shared: redisBreakerSync(redis, { onStoreEvent: () => undefined }),
      },
    });
    const client = axios.create();
    plugin.install(client);
    try {
      await own.kill();
      for (let i = 0; i < 3; i++) await client.get(`${server.url}/r`).catch(() => undefined);
      expect(await client.get(`${server.url}/r`).catch((e: unknown) => e)).toBeInstanceOf(CircuitOpenError);
      await new Promise((resolve) => setTimeout(resolve, 250)); // half-open: the probe goes out without Redis
      const error = (await client.get(`${server.url}/r`).catch((e: unknown) => e)) as AxiosError;
      expect(error.response?.status).toBe(503);
      expect(server.received()).toBe(4);
    } finally {
      await plugin.close();
      redis.disconnect();
      await server.close();
    }
  }, 30_000);
});
