/**
 * Rate limits through real axios and a real node:http server: what the server receives, the waits
 * chosen and the errors thrown when an origin throttles.
 */
import type { AxiosError } from 'axios';
import { retryPlugin } from '../../lib';
import type { RateLimitEvent, RateLimitSchedule, RateLimitStore, RetryEvent, RetryPluginOptions } from '../../lib';
import { RateLimiter } from '../../lib/guards/rate-limiter';
import { SharedPacing } from '../../lib/redis';
import { client, closePlugins, rejection } from '../support/helpers';
import { serverPerTest, until } from '../support/test-server';
import type { Handler } from '../support/test-server';

const t = serverPerTest();
afterEach(closePlugins);

/** Records when each request reached the server (Date.now()), in order, around `handler`. */
function timed(handler: Handler): { handler: Handler; arrivals: number[] } {
  const arrivals: number[] = [];
  return {
    arrivals,
    handler: (req, res, index) => {
      arrivals.push(Date.now());
      handler(req, res, index);
    },
  };
}

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

test("one call's retry-after-ms holds the whole origin, and is read before Retry-After", async () => {
  const server = timed(throttleFirst(1, { 'retry-after-ms': '250', 'retry-after': '30' }));
  t.handler = server.handler;
  const events: RateLimitEvent[] = [];
  const retries: RetryEvent[] = [];
  // The pause, read the moment the limiter engages, against the clock of that moment: a test that
  // polled for it could notice only after a loaded machine had let the 250 ms pass.
  let engaged: { at: number; pausedUntil: number } | undefined;
  const { http, plugin } = client({
    onRateLimit: (e) => {
      events.push(e);
      engaged ??= { at: Date.now(), pausedUntil: plugin.limiter(t.server.url)!.pausedUntil };
    },
    onRetry: (e) => void retries.push(e),
  });
  const first = http.get(`${t.server.url}/a`);
  // Wait for the 429 to engage the limiter, then start a second call.
  await until(() => engaged !== undefined);
  const { at, pausedUntil } = engaged!;
  expect(pausedUntil).toBeGreaterThan(at);
  expect(pausedUntil - at).toBeLessThanOrEqual(250);
  await Promise.all([first, http.get(`${t.server.url}/b`)]);
  // Nothing reached the server during the pause: the second and third requests came after it (as the
  // server saw them, so however late this test noticed the limiter was on).
  expect(t.server.requests).toHaveLength(3);
  expect(server.arrivals.slice(1).every((arrival) => arrival >= pausedUntil)).toBe(true);
  expect(events).toEqual([{ origin: t.server.url, state: 'engaged', ratePerSecond: expect.any(Number) }]);
  expect(retries).toHaveLength(1);
  expect(retries[0]).toMatchObject({ reason: 'rate-limited', delaySource: 'retry-after' });
});

test('a throttled retry takes no budget token: the limiter holds it to the rate', async () => {
  t.handler = throttleFirst(1);
  const { http } = client({ budget: { ratio: 0, minPerSecond: 0 } });
  const response = await http.get(`${t.server.url}/r`);
  expect(response.status).toBe(200);
  expect(t.server.requests).toHaveLength(2);
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

test("a call that would wait past its deadline in a paused origin's queue stops with rate-limited, unsent", async () => {
  t.handler = throttleFirst(1, { 'retry-after': '20' });
  const { http, plugin } = client({ retries: 0 });
  await rejection(http.get(`${t.server.url}/a`));
  expect(plugin.limiter(t.server.url)?.state).toBe('on');
  const started = Date.now();
  const error = await rejection(http.get(`${t.server.url}/b`, { retry: { deadlineMs: 10_000 } }));
  expect(stateOf(error).stopReason).toBe('rate-limited');
  expect((error as unknown as AxiosError).code).toBe('ERR_RATE_LIMITED');
  // At once: a call that queued would wait all of its 10 s deadline (the pause is 20 s); half of it
  // leaves a slow machine seconds of slack.
  expect(Date.now() - started).toBeLessThan(5000);
  expect(t.server.requests).toHaveLength(1);
});

test('a call past the queue bound stops with rate-limited; an aborted one leaves the queue', async () => {
  t.handler = throttleFirst(1, { 'retry-after-ms': '400' });
  const { http, plugin } = client({ retries: 0, rateLimit: { maxQueue: 1 } });
  await rejection(http.get(`${t.server.url}/a`));
  const controller = new AbortController();
  const queued = rejection(http.get(`${t.server.url}/b`, { signal: controller.signal }));
  await until(() => plugin.limiter(t.server.url)?.queued === 1);
  const refused = await rejection(http.get(`${t.server.url}/c`));
  expect(stateOf(refused).stopReason).toBe('rate-limited');
  controller.abort();
  expect(stateOf(await queued).stopReason).toBe('aborted');
  expect(plugin.limiter(t.server.url)?.queued).toBe(0);
  expect(t.server.requests).toHaveLength(1);
});

test('close() ends the waits of queued calls', async () => {
  t.handler = throttleFirst(1, { 'retry-after': '20' });
  const { http, plugin } = client({ retries: 0 });
  await rejection(http.get(`${t.server.url}/a`));
  const queued = rejection(http.get(`${t.server.url}/b`));
  await until(() => plugin.limiter(t.server.url)?.queued === 1);
  await plugin.close();
  expect(stateOf(await queued).stopReason).toBe('aborted');
  expect(t.server.requests).toHaveLength(1);
});

test("a Retry-After ten years away holds the origin maxDelayMs, or stops the call with retryAfter: 'fail'", async () => {
  t.handler = throttleFirst(1, { 'retry-after': String(10 * 365 * 86_400) });
  // Read as the limiter engages: after the call, a loaded machine may already have let the second pass.
  let engaged: { at: number; pausedUntil: number } | undefined;
  const { http, plugin } = client({
    retries: 0,
    maxDelayMs: 1000,
    onRateLimit: () => void (engaged ??= { at: Date.now(), pausedUntil: plugin.limiter(t.server.url)!.pausedUntil }),
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
  const spent: Array<[string, Record<string, string>, number]> = [
    // The IETF fields with a policy: paced to 97 % of its stated rate at once.
    ['RateLimit', { ratelimit: '"d";r=0;t=1', 'ratelimit-policy': '"d";q=10;w=1' }, 10],
    // X-RateLimit states no window: paced from the seed rate.
    ['X-RateLimit', { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' }, 20],
  ];
  test.each(spent)('%s, on the fast path: the calls after it are paced, none refused', async (_name, headers, rate) => {
    const server = timed((_req, res) => res.writeHead(200, headers).end('ok'));
    t.handler = server.handler;
    const events: RateLimitEvent[] = [];
    const { http, plugin } = client({ onRateLimit: (e) => events.push(e) });
    await http.get(`${t.server.url}/first`);
    expect(plugin.limiter(t.server.url)).toMatchObject({ state: 'on' });
    expect(plugin.limiter(t.server.url)!.ratePerSecond).toBeLessThanOrEqual(rate);
    expect(events).toEqual([{ origin: t.server.url, state: 'engaged', ratePerSecond: expect.any(Number) }]);
    await Promise.all([1, 2, 3].map((i) => http.get(`${t.server.url}/${i}`)));
    expect(t.server.requests.map((r) => r.url)).toEqual(['/first', '/1', '/2', '/3']);
    // Paced from the moment the limiter engaged (after /first reached the server): the third call at least
    // two intervals later. Measured from there, not from when this test started the three: a limiter
    // that finds its last turn long past lets one call go early (one interval of credit), and on a slow
    // machine the test may start them that late.
    const [first, , , third] = server.arrivals;
    expect(third! - first!).toBeGreaterThanOrEqual(2 * (1000 / rate) - 5);
  });

  test('a retried call whose success spent the quota engages it too', async () => {
    t.handler = (_req, res, index) =>
      index === 0 ? res.writeHead(502).end() : res.writeHead(200, { 'x-ratelimit-remaining': '0' }).end('ok');
    const { http, plugin } = client({ baseDelayMs: 1 });
    await http.get(`${t.server.url}/r`);
    expect(t.server.requests).toHaveLength(2);
    expect(plugin.limiter(t.server.url)?.state).toBe('on');
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

describe('a throttle that says nothing but its status reaches the limiter as such (within a small share it is noise)', () => {
  const answers: Array<[string, number, Record<string, string>, boolean]> = [
    ['a bare 429', 429, {}, true],
    ['a 429 with Retry-After: 0', 429, { 'retry-after': '0' }, false],
    ['a 429 with retry-after-ms', 429, { 'retry-after-ms': '5' }, false],
    ['a 429 with X-RateLimit fields', 429, { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '3' }, false],
    ['a 429 with the IETF RateLimit field', 429, { ratelimit: '"w";r=3;t=1' }, false],
    ['a 503 with retry-after-ms', 503, { 'retry-after-ms': '5' }, false],
  ];
  test.each(answers)('%s', async (_name, status, headers, hintless) => {
    const told = jest.spyOn(RateLimiter.prototype, 'throttled');
    try {
      t.handler = (_req, res, index) =>
        index === 0 ? res.writeHead(status, headers).end('slow down') : res.writeHead(200).end('ok');
      const { http } = client({ baseDelayMs: 1 });
      await http.get(`${t.server.url}/t`);
      expect(t.server.requests).toHaveLength(2);
      expect(told).toHaveBeenCalledTimes(1);
      expect(told.mock.calls[0]![0]).toMatchObject({ hintless });
    } finally {
      told.mockRestore();
    }
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
