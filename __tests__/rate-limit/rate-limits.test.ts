/**
 * Rate limits through real axios and a real node:http server: what the server receives, the waits
 * chosen and the errors thrown when an origin throttles.
 */
import type { AxiosError } from 'axios';
import { retryPlugin } from '../../lib';
import type {
  RateLimitEvent,
  RateLimiterView,
  RateLimitSchedule,
  RateLimitStore,
  RetryEvent,
  RetryPluginOptions,
} from '../../lib';
import { RateLimiter } from '../../lib/guards/rate-limiter';
import { SharedPacing } from '../../lib/redis';
import { client, closePlugins, rejection } from '../support/helpers';
import { serverPerTest, until } from '../support/test-server';
import type { Handler } from '../support/test-server';

const t = serverPerTest();
afterEach(closePlugins);

/** 429 with `headers` for the first `n` requests, then 200. */
const throttleFirst =
  (n: number, headers: Record<string, string> = {}): Handler =>
  (_req, res, index) =>
    index < n ? res.writeHead(429, headers).end('slow down') : res.writeHead(200).end('ok');

const stateOf = (error: unknown) => (error as AxiosError).config!.retryState!;

test('a 429 never counts against the breaker: the origin stays reachable', async () => {
  t.handler = (_req, res) => res.writeHead(429).end();
  // The limiter off, so the twelve calls are not paced down to a call a second.
  const { http, plugin } = client({ retries: 0, breaker: { volumeThreshold: 5 }, rateLimit: false });
  for (let i = 0; i < 12; i++) await rejection(http.get(`${t.server.url}/r`));
  expect(plugin.breaker(t.server.url)!.closed).toBe(true);
  expect(t.server.requests).toHaveLength(12);
});

test('a 503 still counts (unchanged): the breaker opens and nothing more is sent', async () => {
  t.handler = (_req, res) => res.writeHead(503).end();
  const { http } = client({ retries: 0, breaker: { volumeThreshold: 5 } });
  for (let i = 0; i < 12; i++) await rejection(http.get(`${t.server.url}/r`));
  expect(t.server.requests.length).toBeLessThan(12);
});

test('a short retry-after-ms is read before Retry-After and waited by the refused call; its route is paced, not paused', async () => {
  t.handler = throttleFirst(1, { 'retry-after-ms': '4000', 'retry-after': '30' });
  const events: RateLimitEvent[] = [];
  const retries: RetryEvent[] = [];
  // The view read the moment the limiter engages (a test that polled could notice late on a loaded machine).
  let view: RateLimiterView | undefined;
  const { http, plugin } = client({
    onRateLimit: (e) => {
      events.push(e);
      view ??= plugin.limiter(`${t.server.url}/a`);
    },
    onRetry: (e) => void retries.push(e),
  });
  const first = rejection(http.get(`${t.server.url}/a`));
  await until(() => retries.length === 1);
  expect(view).toMatchObject({ state: 'on', scope: 'GET /a', pausedUntil: 0 });
  // Not paused: a second call to the route is sent while the refused one waits its own 4 s.
  const second = await http.get(`${t.server.url}/a?second`);
  expect(second.status).toBe(200);
  expect(t.server.requests.map((r) => r.url)).toEqual(['/a', '/a?second']);
  await plugin.close();
  expect(stateOf(await first).stopReason).toBe('aborted');
  expect(events).toEqual([
    { origin: t.server.url, scope: 'GET /a', state: 'engaged', ratePerSecond: expect.any(Number) },
  ]);
  expect(retries[0]).toMatchObject({ reason: 'rate-limited', delaySource: 'retry-after', delayMs: 4000 });
});

test('a wait of 5 s or more holds every call of the throttled route until it ends, and no call of another route', async () => {
  t.handler = (req, res) =>
    req.url === '/a' && t.server.requests.length === 1
      ? res.writeHead(429, { 'retry-after': '20' }).end()
      : res.writeHead(200).end('ok');
  const { http, plugin } = client({ retries: 0 });
  await rejection(http.get(`${t.server.url}/a`));
  const held = rejection(http.get(`${t.server.url}/a`));
  await until(() => plugin.limiter(`${t.server.url}/a`)?.queued === 1);
  expect(plugin.limiter(`${t.server.url}/a`)!.pausedUntil).toBeGreaterThan(Date.now() + 15_000);
  expect((await http.get(`${t.server.url}/b`)).status).toBe(200);
  await plugin.close();
  expect(stateOf(await held).stopReason).toBe('aborted');
  expect(t.server.requests.map((r) => r.url)).toEqual(['/a', '/b']);
});

test('a throttle’s retry takes no budget token, paced by its limiter or not yet (a bare 429 waits its backoff)', async () => {
  t.handler = throttleFirst(1, { 'retry-after-ms': '5' });
  const paced = client({ budget: { ratio: 0, minPerSecond: 0 } });
  expect((await paced.http.get(`${t.server.url}/r`)).status).toBe(200);
  expect(t.server.requests).toHaveLength(2);
  t.server.requests.length = 0;
  t.handler = throttleFirst(1);
  const bare = client({ budget: { ratio: 0, minPerSecond: 0 } });
  expect((await bare.http.get(`${t.server.url}/r`)).status).toBe(200);
  expect(t.server.requests).toHaveLength(2);
  expect(bare.plugin.limiter(`${t.server.url}/r`)).toBeUndefined();
});

test('a 503 retry still needs a token (unchanged)', async () => {
  t.handler = (_req, res, index) => res.writeHead(index === 0 ? 503 : 200).end();
  const { http } = client({ budget: { ratio: 0, minPerSecond: 0 } });
  const error = await rejection(http.get(`${t.server.url}/r`));
  expect(stateOf(error).stopReason).toBe('budget-exhausted');
});

test('x-should-retry: false stops a retryable failure; true retries a status the table would not', async () => {
  t.handler = (_req, res, index) =>
    index === 0
      ? res.writeHead(503, { 'x-should-retry': 'false' }).end()
      : index === 1
        ? res.writeHead(400, { 'x-should-retry': 'true' }).end()
        : res.writeHead(200).end('ok');
  const { http } = client();
  const error = await rejection(http.get(`${t.server.url}/a`));
  expect(stateOf(error).stopReason).toBe('not-retryable');
  expect(t.server.requests).toHaveLength(1);
  const response = await http.get(`${t.server.url}/b`);
  expect(response.status).toBe(200);
  expect(t.server.requests).toHaveLength(3);
});

test("a call that would wait past its deadline in a held route's queue stops with rate-limited, unsent", async () => {
  t.handler = throttleFirst(1, { 'retry-after': '20' });
  const { http, plugin } = client({ retries: 0 });
  await rejection(http.get(`${t.server.url}/a`));
  expect(plugin.limiter(`${t.server.url}/a`)?.state).toBe('on');
  const started = Date.now();
  const error = await rejection(http.get(`${t.server.url}/a`, { retry: { deadlineMs: 10_000 } }));
  expect(stateOf(error).stopReason).toBe('rate-limited');
  expect((error as unknown as AxiosError).code).toBe('ERR_RATE_LIMITED');
  // At once: a call that queued would wait all of its 10 s deadline (the hold is 20 s); half of it
  // leaves a slow machine seconds of slack.
  expect(Date.now() - started).toBeLessThan(5000);
  expect(t.server.requests).toHaveLength(1);
});

test('a call past the queue bound stops with rate-limited; an aborted one leaves the queue', async () => {
  t.handler = throttleFirst(1, { 'retry-after': '20' });
  const { http, plugin } = client({ retries: 0, rateLimit: { maxQueue: 1 } });
  await rejection(http.get(`${t.server.url}/a`));
  const controller = new AbortController();
  const queued = rejection(http.get(`${t.server.url}/a`, { signal: controller.signal }));
  await until(() => plugin.limiter(`${t.server.url}/a`)?.queued === 1);
  const refused = await rejection(http.get(`${t.server.url}/a`));
  expect(stateOf(refused).stopReason).toBe('rate-limited');
  controller.abort();
  expect(stateOf(await queued).stopReason).toBe('aborted');
  expect(plugin.limiter(`${t.server.url}/a`)?.queued).toBe(0);
  expect(t.server.requests).toHaveLength(1);
});

test('close() ends the waits of queued calls', async () => {
  t.handler = throttleFirst(1, { 'retry-after': '20' });
  const { http, plugin } = client({ retries: 0 });
  await rejection(http.get(`${t.server.url}/a`));
  const queued = rejection(http.get(`${t.server.url}/a`));
  await until(() => plugin.limiter(`${t.server.url}/a`)?.queued === 1);
  await plugin.close();
  expect(stateOf(await queued).stopReason).toBe('aborted');
  expect(t.server.requests).toHaveLength(1);
});

test("a Retry-After ten years away holds the origin maxDelayMs, or stops the call with retryAfter: 'fail'", async () => {
  t.handler = throttleFirst(1, { 'retry-after': String(10 * 365 * 86_400) });
  // Read as the limiter engages: after the call, a loaded machine may already have let the hold pass.
  let engaged: { at: number; pausedUntil: number } | undefined;
  const { http, plugin } = client({
    retries: 0,
    maxDelayMs: 1000,
    onRateLimit: () =>
      void (engaged ??= { at: Date.now(), pausedUntil: plugin.limiter(`${t.server.url}/a`)!.pausedUntil }),
  });
  await rejection(http.get(`${t.server.url}/a`));
  expect(engaged!.pausedUntil).toBeGreaterThan(engaged!.at);
  expect(engaged!.pausedUntil).toBeLessThanOrEqual(engaged!.at + 1000);
  t.server.requests.length = 0;
  t.handler = throttleFirst(1, { 'retry-after': String(10 * 365 * 86_400) });
  const strict = client({ retryAfter: 'fail', maxDelayMs: 1000 });
  const error = await rejection(strict.http.get(`${t.server.url}/b`));
  expect(stateOf(error).stopReason).toBe('retry-after-too-long');
});

describe('a success whose headers say the quota is spent engages the limiter before any 429', () => {
  const spent: Array<[string, Record<string, string>]> = [
    ['RateLimit', { ratelimit: '"d";r=0;t=1', 'ratelimit-policy': '"d";q=10;w=1' }],
    ['X-RateLimit', { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' }],
  ];
  test.each(spent)(
    '%s, on the fast path: the next call of the route waits for the reset, none is refused',
    async (_name, headers) => {
      t.handler = (_req, res) => res.writeHead(200, headers).end('ok');
      const events: RateLimitEvent[] = [];
      const { http, plugin } = client({ onRateLimit: (e) => events.push(e) });
      const answered = Date.now();
      await http.get(`${t.server.url}/first`);
      const view = plugin.limiter(`${t.server.url}/first`)!;
      expect(view).toMatchObject({ state: 'on', scope: 'GET /first' });
      // Believed at once: the window's reset, a second away, holds the route.
      expect(view.pausedUntil).toBeGreaterThan(answered + 500);
      expect(events).toEqual([
        { origin: t.server.url, scope: 'GET /first', state: 'engaged', ratePerSecond: expect.any(Number) },
      ]);
      const next = rejection(http.get(`${t.server.url}/first`));
      await until(() => plugin.limiter(`${t.server.url}/first`)?.queued === 1);
      expect(t.server.requests).toHaveLength(1);
      await plugin.close();
      expect(stateOf(await next).stopReason).toBe('aborted');
    },
  );

  test('a retried call whose success spent the quota engages it too', async () => {
    t.handler = (_req, res, index) =>
      index === 0 ? res.writeHead(502).end() : res.writeHead(200, { 'x-ratelimit-remaining': '0' }).end('ok');
    const { http, plugin } = client({ baseDelayMs: 1 });
    await http.get(`${t.server.url}/r`);
    expect(t.server.requests).toHaveLength(2);
    expect(plugin.limiter(`${t.server.url}/r`)?.state).toBe('on');
  });

  test('a quota not spent engages nothing, and malformed fields are ignored', async () => {
    t.handler = (_req, res, index) =>
      res
        .writeHead(
          200,
          index === 0 ? { 'x-ratelimit-remaining': '3' } : { ratelimit: 'r=-1;t=abc', 'x-ratelimit-remaining': 'none' },
        )
        .end('ok');
    const { http, plugin } = client();
    await http.get(`${t.server.url}/a`);
    await http.get(`${t.server.url}/b`);
    expect(plugin.limiter(t.server.url)).toBeUndefined();
  });
});

describe('a throttle with a hint reaches its limiter; one that says nothing but its status is weighed first', () => {
  const answers: Array<[string, number, Record<string, string>, boolean]> = [
    ['a bare 429', 429, {}, false],
    ['a 429 with Retry-After: 0', 429, { 'retry-after': '0' }, true],
    ['a 429 with retry-after-ms', 429, { 'retry-after-ms': '5' }, true],
    ['a 429 with X-RateLimit fields', 429, { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '3' }, true],
    ['a 429 with the IETF RateLimit field', 429, { ratelimit: '"w";r=3;t=1' }, true],
    ['a 503 with retry-after-ms', 503, { 'retry-after-ms': '5' }, true],
  ];
  test.each(answers)('%s', async (_name, status, headers, told) => {
    const throttled = jest.spyOn(RateLimiter.prototype, 'throttled');
    try {
      t.handler = (_req, res, index) =>
        index === 0 ? res.writeHead(status, headers).end('slow down') : res.writeHead(200).end('ok');
      const { http } = client({ baseDelayMs: 1 });
      await http.get(`${t.server.url}/t`);
      expect(t.server.requests).toHaveLength(2);
      expect(throttled).toHaveBeenCalledTimes(told ? 1 : 0);
      if (told) expect(throttled.mock.calls[0]![0]).toMatchObject({ hintless: false });
    } finally {
      throttled.mockRestore();
    }
  });

  test('bare refusals engage the route at the fifth, when they are half of its answers: the rate is then the cause', async () => {
    // Every other request refused, with no hint; the plugin's clock moves 200 ms a request.
    let clock = 1_000_000;
    t.handler = (_req, res, index) => {
      clock += 200;
      if (index % 2 === 0) res.writeHead(429).end();
      else res.writeHead(200).end('ok');
    };
    const { http, plugin } = client({ baseDelayMs: 1, now: () => clock });
    for (let i = 0; i < 4; i++) await http.get(`${t.server.url}/t`);
    expect(plugin.limiter(`${t.server.url}/t`)).toBeUndefined();
    await http.get(`${t.server.url}/t`);
    expect(plugin.limiter(`${t.server.url}/t`)).toMatchObject({ state: 'on', scope: 'GET /t' });
  });

  test('a fifth of the answers refused, held for a second, engages too; not before the second', async () => {
    // One request in four refused, with no hint; the plugin's clock moves 100 ms a request.
    let clock = 1_000_000;
    t.handler = (_req, res, index) => {
      clock += 100;
      if (index % 4 === 0) res.writeHead(429).end();
      else res.writeHead(200).end('ok');
    };
    const { http, plugin } = client({ baseDelayMs: 1, now: () => clock });
    // Five refusals by the 17th request (1.6 s): a quarter of the answers, held past a second.
    for (let i = 0; i < 12; i++) await http.get(`${t.server.url}/t`);
    expect(plugin.limiter(`${t.server.url}/t`)).toBeUndefined();
    await http.get(`${t.server.url}/t`);
    expect(t.server.requests).toHaveLength(18);
    expect(plugin.limiter(`${t.server.url}/t`)).toMatchObject({ state: 'on', scope: 'GET /t' });
  });

  test('a burst of bare refusals that the callers’ own backoff resolves within the second engages nothing', async () => {
    // Ten refusals at once (a server allowing so many requests in flight, met by twice as many), then none.
    // The plugin's clock moves 10 ms a request (about half a second in all), however slow the host.
    let clock = 1_000_000;
    t.handler = (_req, res, index) => {
      clock += 10;
      if (index < 10) res.writeHead(429).end();
      else res.writeHead(200).end('ok');
    };
    const { http, plugin } = client({ baseDelayMs: 1, now: () => clock });
    await Promise.all(Array.from({ length: 20 }, () => http.get(`${t.server.url}/t`)));
    for (let i = 0; i < 20; i++) await http.get(`${t.server.url}/t`);
    expect(plugin.limiter(`${t.server.url}/t`)).toBeUndefined();
  });

  test('bare refusals of one call in fifty never engage a limiter: each refused call waits its own backoff', async () => {
    t.handler = (_req, res, index) => (index % 50 === 7 ? res.writeHead(429).end() : res.writeHead(200).end('ok'));
    const { http, plugin } = client({ baseDelayMs: 1 });
    for (let i = 0; i < 300; i++) await http.get(`${t.server.url}/t`);
    expect(t.server.requests.length).toBe(306);
    expect(plugin.limiter(`${t.server.url}/t`)).toBeUndefined();
  });
});

test('rateLimit: false leaves a throttled origin unpaced (the 0.x behaviour)', async () => {
  t.handler = throttleFirst(1, { 'retry-after': '20' });
  const { http, plugin } = client({ retries: 0, rateLimit: false });
  await rejection(http.get(`${t.server.url}/a`));
  expect(plugin.limiter(t.server.url)).toBeUndefined();
  await http.get(`${t.server.url}/b`);
  expect(t.server.requests).toHaveLength(2);
});

describe('options', () => {
  test.each<[unknown, string]>([
    [{ maxQueue: 0 }, 'rateLimit.maxQueue'],
    [{ maxQueue: 1.5 }, 'rateLimit.maxQueue'],
    [{ maxOrigins: -1 }, 'rateLimit.maxOrigins'],
    [{ queue: 5 }, 'rateLimit.queue'],
    [{ shared: null }, 'rateLimit.shared'],
    [{ shared: {} }, 'rateLimit.shared'],
    // A schedule is not a store: the store makes each origin's pacing.
    [{ shared: { take: () => undefined, throttle: () => undefined } }, 'rateLimit.shared'],
    // A breaker's sync is not a rate-limit store.
    [{ shared: { announce: () => undefined, start: () => undefined } }, 'rateLimit.shared'],
    ['on', 'rateLimit'],
  ])('rateLimit: %p throws a TypeError naming %s', (value, field) => {
    expect(() => retryPlugin({ rateLimit: value } as RetryPluginOptions)).toThrow(TypeError);
    expect(() => retryPlugin({ rateLimit: value } as RetryPluginOptions)).toThrow(field);
  });

  test('rateLimit.shared takes a RateLimitStore', async () => {
    const schedule: RateLimitSchedule = {
      usable: () => false,
      take: () => Promise.resolve(undefined),
      throttle: () => Promise.resolve(undefined),
    };
    const store: RateLimitStore = { pacing: (key, now) => new SharedPacing(key, schedule, now) };
    const plugin = retryPlugin({ rateLimit: { shared: store } });
    await plugin.close();
  });

  test('onRateLimit must be a function', () => {
    expect(() => retryPlugin({ onRateLimit: 5 } as unknown as RetryPluginOptions)).toThrow(/onRateLimit/);
  });
});
