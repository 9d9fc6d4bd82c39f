/**
 * The breaker never makes things worse: with default options, blips that retries absorb never open
 * it, outages open it fast, it recovers within seconds, and its stats tell the truth. Real
 * node:http servers on 127.0.0.1; fake timers where the waits are long.
 */
import axios from 'axios';
import type { AxiosError } from 'axios';
import CircuitBreaker from 'opossum';
import { CircuitOpenError, retryPlugin } from '../../lib';
import type { CircuitStateChange, RetryPluginOptions } from '../../lib';
import { fake, rejection } from '../support/helpers';
import { serverPerTest, startServer } from '../support/test-server';
import type { Handler } from '../support/test-server';

const t = serverPerTest();

/** Default breaker and budget; only the base delay small, so blips run fast. */
function setup(options: RetryPluginOptions = {}) {
  const changes: CircuitStateChange[] = [];
  const plugin = retryPlugin({ baseDelayMs: 2, onCircuitStateChange: (c) => void changes.push(c), ...options });
  const http = axios.create();
  plugin.install(http);
  t.plugins.push(plugin);
  return { http, plugin, changes };
}

/** Answers each path with the given statuses in turn (the last repeats). */
function perPath(statuses: number[]): Handler {
  const seen = new Map<string, number>();
  return (req, res) => {
    const n = seen.get(req.url) ?? 0;
    seen.set(req.url, n + 1);
    res.writeHead(statuses[Math.min(n, statuses.length - 1)]!).end();
  };
}

/** Runs real I/O and fake timers together for `ms` of fake time, in small steps. */
async function run(ms: number, step = 20): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    await jest.advanceTimersByTimeAsync(step);
    for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

describe('1. blips pass (defaults)', () => {
  test('30 sequential GETs, each answered 503 once and then 200: 30 of 30 succeed', async () => {
    t.handler = perPath([503, 200]);
    const { http, plugin, changes } = setup();
    let ok = 0;
    for (let i = 0; i < 30; i++) if ((await http.get(`${t.server.url}/item/${i}`)).status === 200) ok++;
    expect(ok).toBe(30);
    expect(t.server.requests).toHaveLength(60);
    expect(changes).toEqual([]);
    expect(plugin.breaker(t.server.url)?.stats).toMatchObject({ fires: 30, failures: 0, rejects: 0 });
  });

  test('10 concurrent GETs, each answered 503, 503, then 200: 10 of 10 succeed', async () => {
    t.handler = perPath([503, 503, 200]);
    const { http, changes } = setup();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => http.get(`${t.server.url}/item/${i}`)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    expect(t.server.requests).toHaveLength(30);
    expect(changes).toEqual([]);
  });
});

describe('2. outages still open it fast (defaults)', () => {
  test('an origin answering only 503 opens the breaker within the first 20 failed calls', async () => {
    t.handler = (_req, res) => res.writeHead(503).end();
    const { http, changes } = setup({ retries: 2 });
    let failedCalls = 0;
    let refused: unknown;
    for (let i = 0; i < 40 && refused === undefined; i++) {
      const error = await rejection(http.get(`${t.server.url}/r`));
      if (error instanceof CircuitOpenError) refused = error;
      else failedCalls++;
    }
    expect(refused).toBeInstanceOf(CircuitOpenError);
    expect(failedCalls).toBeLessThanOrEqual(20);
    expect(changes.map((c) => c.state)).toEqual(['open']);
  });

  test('an origin refusing connections opens it within the first 20 failed calls', async () => {
    const closed = await startServer(() => undefined);
    const url = closed.url;
    await closed.close();
    const { http } = setup({ retries: 2 });
    let failedCalls = 0;
    let refused = false;
    for (let i = 0; i < 40 && !refused; i++) {
      const error = (await rejection(http.get(`${url}/r`))) as unknown as AxiosError;
      if (error instanceof CircuitOpenError) refused = true;
      else {
        expect(error.code).toBe('ECONNREFUSED');
        failedCalls++;
      }
    }
    expect(refused).toBe(true);
    expect(failedCalls).toBeLessThanOrEqual(20);
  });

  test('a low-traffic client (1 call/s, full defaults) fails fast within 30 s of an outage starting', async () => {
    fake();
    t.handler = (_req, res) => res.writeHead(503).end();
    const { http } = setup({ baseDelayMs: 500, random: () => 0.5 });
    const outcomes: Array<{ at: number; refused: boolean }> = [];
    const start = Date.now();
    for (let second = 0; second < 30; second++) {
      const at = Date.now() - start;
      http.get(`${t.server.url}/r`).catch((error: unknown) => {
        outcomes.push({ at, refused: error instanceof CircuitOpenError });
      });
      await run(1000, 50);
    }
    const firstRefusal = outcomes.find((o) => o.refused);
    expect(firstRefusal).toBeDefined();
    // Each failing call takes 7.75 s of backoff (250 + 500 + 1000 + 2000 + 4000 ms at random() = 0.5);
    // calls count when they end, so the breaker opens once enough failed calls have ended within its
    // window: measured, the call made at 15 s is the first refused (docs/guides/budget-and-breaker.md).
    expect(firstRefusal!.at).toBe(15_000);
  });
});

describe('3. recovery in seconds, patience in long outages (defaults)', () => {
  test('after a 5 s outage the first call succeeds within 5 s of the origin’s return', async () => {
    fake();
    let down = true;
    t.handler = (_req, res) => res.writeHead(down ? 503 : 200).end();
    const { http, changes } = setup({ random: () => 0.5 });
    const successes: number[] = [];
    const start = Date.now();
    // 20 calls/s for 12 s; the origin comes back at 5 s.
    for (let tick = 0; tick < 240; tick++) {
      if (tick === 100) down = false;
      http.get(`${t.server.url}/r`).then(
        () => successes.push(Date.now() - start),
        () => undefined,
      );
      await run(50, 50);
    }
    expect(changes[0]?.state).toBe('open');
    expect(successes.length).toBeGreaterThan(0);
    const firstSuccess = Math.min(...successes);
    expect(firstSuccess).toBeGreaterThanOrEqual(5000);
    expect(firstSuccess - 5000).toBeLessThanOrEqual(5000);
    expect(changes.map((c) => c.state).at(-1)).toBe('closed');
  });

  test('during a 2-minute outage the origin sees at most 8 probes, waits doubling to the cap', async () => {
    fake();
    t.handler = (_req, res) => res.writeHead(503).end();
    const { http, plugin, changes } = setup({ retries: 0, random: () => 0.5 });
    for (let i = 0; i < 10; i++) await rejection(http.get(`${t.server.url}/r`));
    expect(plugin.breaker(t.server.url)?.opened).toBe(true);
    const openedAt = Date.now();
    const halfOpenAt: number[] = [];
    plugin.breaker(t.server.url)!.on('halfOpen', () => halfOpenAt.push(Date.now() - openedAt));
    const before = t.server.requests.length;
    // A busy client: a call every 100 ms for two minutes.
    for (let tick = 0; tick < 1200; tick++) {
      http.get(`${t.server.url}/r`).catch(() => undefined);
      await jest.advanceTimersByTimeAsync(100);
      if (tick % 10 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await run(200);
    const probes = t.server.requests.length - before;
    expect(probes).toBeLessThanOrEqual(8);
    expect(probes).toBe(halfOpenAt.length);
    // 2 s, then 4, 8, 16, 32, 60 (capped): half-open at 2, 6, 14, 30, 62, 122 s (± one 100 ms tick).
    const gaps = halfOpenAt.map((t, i) => Math.round((t - (halfOpenAt[i - 1] ?? 0)) / 1000));
    expect(gaps.slice(0, 5)).toEqual([2, 4, 8, 16, 32]);
    expect(changes.filter((c) => c.state === 'closed')).toEqual([]);
  });

  test('the open-state wait is jittered ±25 % and resets to the first wait after a success', async () => {
    fake();
    let down = true;
    t.handler = (_req, res) => res.writeHead(down ? 503 : 200).end();
    let r = 0;
    const draws = [0, 1 - 1e-9];
    const { http, plugin } = setup({ retries: 0, breaker: { volumeThreshold: 2 }, random: () => draws[r++ % 2]! });
    const breaker = () => plugin.breaker(t.server.url)!;
    for (let i = 0; i < 2; i++) await rejection(http.get(`${t.server.url}/r`));
    expect(breaker().opened).toBe(true);
    // The first wait was drawn at creation with random() = 0: 2000 × 0.75.
    await jest.advanceTimersByTimeAsync(1499);
    expect(breaker().opened).toBe(true);
    await jest.advanceTimersByTimeAsync(1);
    expect(breaker().halfOpen).toBe(true);
    down = false;
    expect((await http.get(`${t.server.url}/r`)).status).toBe(200);
    expect(breaker().closed).toBe(true);
  });
});

test('3. a half-open probe call keeps its retries: a blip does not keep the breaker open', async () => {
  fake();
  t.handler = (_req, res) => res.writeHead(503).end();
  const { http, plugin } = setup({ breaker: { volumeThreshold: 2 }, random: () => 0.5 });
  for (let i = 0; i < 2; i++) await rejection(http.get(`${t.server.url}/down/${i}`, { retry: { retries: 0 } }));
  expect(plugin.breaker(t.server.url)?.opened).toBe(true);
  await jest.advanceTimersByTimeAsync(2000);
  expect(plugin.breaker(t.server.url)?.halfOpen).toBe(true);
  t.handler = perPath([503, 200]);
  const probe = http.get(`${t.server.url}/blip`);
  await run(100, 5);
  expect((await probe).status).toBe(200);
  expect(t.server.requests.filter((r) => r.url === '/blip')).toHaveLength(2);
  expect(plugin.breaker(t.server.url)?.closed).toBe(true);
});

describe('4. truthful stats and events', () => {
  test('a call refused while open shows in stats.rejects and fires reject; each transition is reported once', async () => {
    fake();
    t.handler = (_req, res) => res.writeHead(503).end();
    const { http, plugin, changes } = setup({ retries: 0, random: () => 0.5 });
    for (let i = 0; i < 10; i++) await rejection(http.get(`${t.server.url}/r`));
    const breaker = plugin.breaker(t.server.url)!;
    const rejects: unknown[] = [];
    breaker.on('reject', (e) => void rejects.push(e));
    const sent = t.server.requests.length;
    for (let i = 0; i < 3; i++) expect(await rejection(http.get(`${t.server.url}/r`))).toBeInstanceOf(CircuitOpenError);
    expect(t.server.requests).toHaveLength(sent);
    expect(breaker.stats.rejects).toBe(3);
    expect(rejects).toHaveLength(3);
    t.handler = (_req, res) => res.writeHead(200).end();
    await jest.advanceTimersByTimeAsync(2000);
    expect((await http.get(`${t.server.url}/r`)).status).toBe(200);
    expect(changes.map((c) => c.state)).toEqual(['open', 'half-open', 'closed']);
  });
});

describe('5. refuse what cannot be honoured', () => {
  test.each([
    ['timeout', /breaker\.timeout cannot be set here; use axios's own `timeout`/],
    ['errorFilter', /breaker\.errorFilter cannot be set here; use `statusCodes` and `errorCodes`/],
    ['rotateBucketController', /breaker\.rotateBucketController cannot be set here/],
    ['enableSnapshots', /breaker\.enableSnapshots cannot be set here/],
    ['cache', /breaker\.cache cannot be set here/],
    ['volumeTreshold', /breaker\.volumeTreshold is not a known breaker option/],
  ])('breaker.%s throws a TypeError naming it', (field, message) => {
    expect(() => retryPlugin({ breaker: { [field]: 1000 } as never })).toThrow(TypeError);
    expect(() => retryPlugin({ breaker: { [field]: 1000 } as never })).toThrow(message);
  });
});

describe('6. partitioning', () => {
  test('breaker.key gives a slow route its own breaker: 25 timeouts on /slow do not block /health', async () => {
    t.handler = (req, res) => (req.url === '/slow' ? undefined : res.writeHead(200).end('ok'));
    const { http, plugin } = setup({
      retries: 0,
      breaker: { key: (config, origin) => (config.url?.endsWith('/slow') ? `${origin}/slow` : origin) },
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 25 }, () => http.get(`${t.server.url}/slow`, { timeout: 30 })),
    );
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    // The origin is `http://127.0.0.1:<port>`, so the slow route's key is that plus `/slow`.
    expect(plugin.breaker(`${t.server.url}/slow`)?.opened).toBe(true);
    expect(await rejection(http.get(`${t.server.url}/slow`, { timeout: 30 }))).toBeInstanceOf(CircuitOpenError);
    expect((await http.get(`${t.server.url}/health`)).data).toBe('ok');
    expect(plugin.breaker(t.server.url)?.closed).toBe(true);
  });

  test('a breaker.key that returns no string is refused with a TypeError naming it', async () => {
    t.handler = (_req, res) => res.writeHead(200).end();
    const { http } = setup({ breaker: { key: () => undefined as unknown as string } });
    await expect(http.get(`${t.server.url}/r`)).rejects.toThrow(/breaker\.key\(\) must return a non-empty string/);
  });
});

test('opossum reads options.resetTimeout from its constructor options at every open (pinned source behaviour)', () => {
  jest.useFakeTimers();
  const options: CircuitBreaker.Options = { resetTimeout: 1000, timeout: false };
  const breaker = new CircuitBreaker(async () => 'ok', options);
  options.resetTimeout = 5000;
  breaker.open();
  jest.advanceTimersByTime(4999);
  expect(breaker.opened).toBe(true);
  jest.advanceTimersByTime(1);
  expect(breaker.halfOpen).toBe(true);
  breaker.shutdown();
});

describe('fleet: the open-state wait is shared', () => {
  function fakeSync() {
    const announced: Array<{ key: string; state: string; waitMs: number }> = [];
    let apply: (key: string, state: 'open' | 'closed', waitMs?: number) => void = () => undefined;
    return {
      announced,
      remote: (key: string, state: 'open' | 'closed', waitMs?: number) => apply(key, state, waitMs),
      sync: {
        start: (fn: typeof apply) => void (apply = fn),
        announce: (key: string, state: 'open' | 'closed', waitMs: number) =>
          void announced.push({ key, state, waitMs }),
        acquireProbe: async () => true,
        close: async () => undefined,
      },
    };
  }

  test('a local open announces the current wait; a remote open uses the wait it was announced with', async () => {
    fake();
    t.handler = (_req, res) => res.writeHead(503).end();
    const fleet = fakeSync();
    const { http, plugin } = setup({
      retries: 0,
      random: () => 0.5,
      breaker: { volumeThreshold: 2, shared: fleet.sync },
    });
    for (let i = 0; i < 2; i++) await rejection(http.get(`${t.server.url}/r`));
    const origin = `${t.server.url}`;
    expect(fleet.announced).toEqual([{ key: origin, state: 'open', waitMs: 2000 }]);
    // Another process closes it, then opens it again after failed probes: 8 s.
    fleet.remote(origin, 'closed');
    fleet.remote(origin, 'open', 8000);
    const breaker = plugin.breaker(t.server.url)!;
    await jest.advanceTimersByTimeAsync(7999);
    expect(breaker.opened).toBe(true);
    await jest.advanceTimersByTimeAsync(1);
    expect(breaker.halfOpen).toBe(true);
  });
});

test('opossum reads its stats and its open decision from the buckets of status.window (pinned source behaviour)', () => {
  const breaker = new CircuitBreaker(async () => 'ok', {
    timeout: false,
    rollingPercentilesEnabled: false,
    volumeThreshold: 4,
  });
  // The plugin counts a closed breaker's successes straight into the current bucket.
  const bucket = breaker.status.window[0]!;
  bucket.fires += 3;
  bucket.successes += 3;
  expect(breaker.stats).toMatchObject({ fires: 3, successes: 3, failures: 0 });
  // Its own success listener keeps a latency number per success, percentiles off or not (the
  // ~1 MB per 100k calls in a 10 s window the plugin avoids by counting, not emitting).
  breaker.emit('success', 'ok');
  expect(breaker.status.window[0]!.latencyTimes).toEqual([0]);
  breaker.shutdown();
});

test('opossum opens on a failure rate that includes successes counted into its bucket (pinned source behaviour)', async () => {
  const breaker = new CircuitBreaker(() => Promise.reject(new Error('down')), {
    timeout: false,
    rollingPercentilesEnabled: false,
    volumeThreshold: 4,
    errorThresholdPercentage: 50,
  });
  const bucket = breaker.status.window[0]!;
  bucket.fires += 3;
  bucket.successes += 3;
  // 1 failure in 4 calls: 25 %, closed; 2 in 5: 40 %, closed; 3 in 6: 50 %, not above; 4 in 7: open.
  for (let i = 0; i < 3; i++) await breaker.fire().catch(() => undefined);
  expect(breaker.closed).toBe(true);
  await breaker.fire().catch(() => undefined);
  expect(breaker.opened).toBe(true);
  breaker.shutdown();
});

describe('success counting under a closed breaker', () => {
  test('a successful call is counted without firing the breaker and keeps no latency sample', async () => {
    t.handler = (_req, res) => res.writeHead(200).end();
    const { http, plugin } = setup();
    await http.get(`${t.server.url}/r`);
    const breaker = plugin.breaker(t.server.url)!;
    const fire = jest.spyOn(breaker as unknown as { fire: (...args: unknown[]) => unknown }, 'fire');
    for (let i = 0; i < 2; i++) await http.get(`${t.server.url}/r`);
    expect(fire).not.toHaveBeenCalled();
    expect(breaker.stats).toMatchObject({ fires: 3, successes: 3, failures: 0 });
    const status = (breaker as unknown as CircuitBreaker).status;
    expect(status.window.map((b) => b.latencyTimes.length)).toEqual(status.window.map(() => 0));
  });

  test('a listener on fire or success hears every successful call', async () => {
    t.handler = (_req, res) => res.writeHead(200).end();
    const { http, plugin } = setup();
    await http.get(`${t.server.url}/r`);
    const breaker = plugin.breaker(t.server.url)!;
    const heard: string[] = [];
    breaker.on('success', () => void heard.push('success'));
    breaker.on('fire', () => void heard.push('fire'));
    for (let i = 0; i < 2; i++) await http.get(`${t.server.url}/r`);
    expect(heard).toEqual(['fire', 'success', 'fire', 'success']);
    expect(breaker.stats).toMatchObject({ fires: 3, successes: 3, failures: 0 });
  });

  test('successes leave the rolling window as it turns, and failures counted later still open it', async () => {
    fake();
    let failing = false;
    t.handler = (_req, res) => res.writeHead(failing ? 503 : 200).end();
    const { http, plugin } = setup({ retries: 0, breaker: { volumeThreshold: 4 } });
    for (let i = 0; i < 20; i++) await http.get(`${t.server.url}/r`);
    const breaker = plugin.breaker(t.server.url)!;
    expect(breaker.stats).toMatchObject({ fires: 20, successes: 20 });
    // One bucket a second, ten buckets: after 10 s the twenty successes are out of the window.
    await jest.advanceTimersByTimeAsync(10_000);
    expect(breaker.stats).toMatchObject({ fires: 0, successes: 0 });
    // Successes in the new bucket count again: 4 of them, then 5 failures open it at 5 of 9.
    for (let i = 0; i < 4; i++) await http.get(`${t.server.url}/r`);
    failing = true;
    for (let i = 0; i < 4; i++) await rejection(http.get(`${t.server.url}/r`));
    expect(breaker.closed).toBe(true);
    await rejection(http.get(`${t.server.url}/r`));
    expect(breaker.opened).toBe(true);
    expect(breaker.stats).toMatchObject({ fires: 9, successes: 4, failures: 5 });
  });
});
