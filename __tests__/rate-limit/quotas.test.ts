/**
 * Quotas as real APIs state them, through real axios and a real node:http server on jest's fake
 * clock (real sockets, fake timers and `Date.now`, which the server reads too): what the server
 * receives, the waits chosen and the errors thrown. One test (or table) per finding of issue 29.
 */
import type { AxiosError, AxiosResponse } from 'axios';
import type { RetryEvent, RetryPluginOptions, RetryState } from '../../lib';
import { settle } from '../support/fake-clock';
import { client, closePlugins, fake, rejection } from '../support/helpers';
import { serverPerTest } from '../support/test-server';
import type { Handler } from '../support/test-server';

const t = serverPerTest();
afterEach(closePlugins);

/** 2026-12-04 06:00:00.000 UTC: a whole second, so fixed windows start on the clock's seconds. */
const NOW = Date.UTC(2026, 11, 4, 6, 0, 0);
const HOUR = 3_600_000;

const stateOf = (error: unknown): RetryState => (error as AxiosError).config!.retryState!;

/** Answers in one quota dialect: `spent` says no request is left until `resetAt` (epoch ms). */
type Dialect = (remaining: number, resetAt: number, limit: number) => Record<string, string>;

const DIALECTS: Record<string, Dialect> = {
  'X-RateLimit (GitHub)': (remaining, resetAt, limit) => ({
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)),
  }),
  'IETF RateLimit': (remaining, resetAt, limit) => ({
    'ratelimit-policy': `"w";q=${limit};w=1`,
    ratelimit: `"w";r=${remaining};t=${Math.ceil((resetAt - Date.now()) / 1000)}`,
  }),
  'IETF RateLimit, no policy': (remaining, resetAt) => ({
    ratelimit: `"w";r=${remaining};t=${Math.ceil((resetAt - Date.now()) / 1000)}`,
  }),
  'OpenAI (no limit sent)': (remaining, resetAt) => ({
    'x-ratelimit-remaining-requests': String(remaining),
    'x-ratelimit-reset-requests': `${Math.ceil((resetAt - Date.now()) / 1000)}s`,
  }),
  'Anthropic (no limit sent)': (remaining, resetAt) => ({
    'anthropic-ratelimit-requests-remaining': String(remaining),
    'anthropic-ratelimit-requests-reset': new Date(resetAt).toISOString(),
  }),
};

describe('a quota spent until later than maxDelayMs (finding 1: a spent hourly quota)', () => {
  const resetAt = NOW + HOUR;
  const spentHourly =
    (status: number, dialect: Dialect): Handler =>
    (_req, res) =>
      Date.now() >= resetAt
        ? res.writeHead(200, dialect(4999, resetAt + HOUR, 5000)).end('ok')
        : res.writeHead(status, dialect(0, resetAt, 5000)).end('rate limit exceeded');

  test.each([
    [403, 'X-RateLimit (GitHub)'],
    [429, 'X-RateLimit (GitHub)'],
    [429, 'IETF RateLimit'],
  ])(
    'a %i in %s: one request, an immediate rate-limited failure saying when, later calls to it refused unsent until the reset',
    async (status, dialect) => {
      fake(NOW);
      t.handler = spentHourly(status, DIALECTS[dialect]!);
      const { http } = client();
      const url = `${t.server.url}/repos`;

      const first = await rejection(settle(http.get(url)));
      expect((first as unknown as AxiosError).response?.status).toBe(status);
      expect(stateOf(first)).toMatchObject({ attempts: 1, stopReason: 'rate-limited', retryAt: resetAt });
      expect(Date.now() - NOW).toBeLessThan(100);

      for (let i = 0; i < 5; i++) {
        const refused = (await rejection(settle(http.get(url)))) as unknown as AxiosError;
        expect(refused.code).toBe('ERR_RATE_LIMITED');
        expect(refused.message).toContain(new Date(resetAt).toISOString());
        expect(stateOf(refused)).toMatchObject({ attempts: 0, stopReason: 'rate-limited', retryAt: resetAt });
      }
      expect(t.server.requests).toHaveLength(1);

      // After the reset the scope lets calls go again.
      jest.setSystemTime(resetAt);
      const later = await settle(http.get(url));
      expect(later.status).toBe(200);
      expect(t.server.requests).toHaveLength(2);
    },
  );

  test.each(['OpenAI (no limit sent)', 'Anthropic (no limit sent)'])(
    'a 429 in %s with the whole quota back in an hour is a refill time: the call is retried after its backoff, never failed at once',
    async (dialect) => {
      fake(NOW);
      t.handler = (_req, res, index) =>
        index < 2 ? res.writeHead(429, DIALECTS[dialect]!(0, resetAt, 5000)).end() : res.writeHead(200).end('ok');
      const { http } = client({ random: () => 0.5 });
      const response = await settle(http.get(`${t.server.url}/v1/chat/completions`), 10);
      expect(response.status).toBe(200);
      // The 503's backoff, twice (random 0.5 of 500 and 1000 ms): the quota frees requests long before it is whole.
      expect(response.config.retryState).toMatchObject({ attempts: 3, delaysMs: [250, 500] });
      // Nothing holds its scope for the hour: the next call is sent.
      expect((await settle(http.get(`${t.server.url}/v1/chat/completions`))).status).toBe(200);
      expect(t.server.requests).toHaveLength(4);
    },
  );

  test('a success that spends such a quota refuses the next call to its route before it is sent; another route is sent, and its own answer holds it', async () => {
    fake(NOW);
    const dialect = DIALECTS['X-RateLimit (GitHub)']!;
    t.handler = (_req, res) => res.writeHead(200, dialect(0, resetAt, 5000)).end('ok');
    const { http } = client();
    expect((await settle(http.get(`${t.server.url}/a`))).status).toBe(200);
    const refused = (await rejection(settle(http.get(`${t.server.url}/a`)))) as unknown as AxiosError;
    expect(refused.code).toBe('ERR_RATE_LIMITED');
    expect(stateOf(refused).retryAt).toBe(resetAt);
    expect((await settle(http.get(`${t.server.url}/b`))).status).toBe(200);
    expect(stateOf(await rejection(settle(http.get(`${t.server.url}/b`)))).stopReason).toBe('rate-limited');
    expect(t.server.requests.map((r) => r.url)).toEqual(['/a', '/b']);
  });

  test("retryAfter: 'fail' gives up on a spent quota the same way (the reset is a server's wait)", async () => {
    fake(NOW);
    t.handler = spentHourly(429, DIALECTS['X-RateLimit (GitHub)']!);
    const { http } = client({ retryAfter: 'fail' });
    const error = await rejection(settle(http.get(`${t.server.url}/r`)));
    expect(stateOf(error)).toMatchObject({ attempts: 1, stopReason: 'rate-limited', retryAt: resetAt });
  });
});

describe('rateLimit.key (finding 8: one quota per token)', () => {
  test("one token's spent quota refuses that token's calls, not another's to the same host", async () => {
    fake(NOW);
    const resetAt = NOW + HOUR;
    const dialect = DIALECTS['X-RateLimit (GitHub)']!;
    t.handler = (req, res) =>
      req.headers.authorization === 'token spent'
        ? res.writeHead(403, dialect(0, resetAt, 5000)).end()
        : res.writeHead(200, dialect(4000, resetAt, 5000)).end('ok');
    const { http } = client({ rateLimit: { key: (config) => String(config.headers.Authorization) } });
    const as = (token: string) => ({ headers: { Authorization: `token ${token}` } });
    const url = `${t.server.url}/user`;

    expect(stateOf(await rejection(settle(http.get(url, as('spent'))))).stopReason).toBe('rate-limited');
    expect(stateOf(await rejection(settle(http.get(url, as('spent'))))).attempts).toBe(0);
    expect((await settle(http.get(url, as('fresh')))).status).toBe(200);
    expect(t.server.requests.map((r) => r.headers.authorization)).toEqual(['token spent', 'token fresh']);
  });

  test('a key function that returns no string fails the call with a TypeError naming it', async () => {
    const { http } = client({ rateLimit: { key: () => '' } });
    const error = await rejection(http.get(`${t.server.url}/r`));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toContain('rateLimit.key() must return a non-empty string');
    expect(t.server.requests).toHaveLength(0);
  });
});

describe('fixed windows honoured on successes (finding 2)', () => {
  const WINDOW_MS = 1000;
  const LIMIT = 3;

  /** A fixed window of 3 requests a second, on the clock's seconds; the answer's headers in `dialect`. */
  function fixedWindow(dialect: Dialect): { handler: Handler; refused: () => number } {
    const used = new Map<number, number>();
    let refused = 0;
    const handler: Handler = (_req, res) => {
      const window = Math.floor(Date.now() / WINDOW_MS);
      const n = (used.get(window) ?? 0) + 1;
      used.set(window, n);
      const resetAt = (window + 1) * WINDOW_MS;
      if (n > LIMIT) {
        refused++;
        res.writeHead(429, dialect(0, resetAt, LIMIT)).end();
      } else {
        res.writeHead(200, dialect(LIMIT - n, resetAt, LIMIT)).end('ok');
      }
    };
    return { handler, refused: () => refused };
  }

  test.each(['X-RateLimit (GitHub)', 'IETF RateLimit', 'IETF RateLimit, no policy'])(
    '%s: 12 calls, each sent when the last is answered: the reset is believed at once, none refused',
    async (dialect) => {
      // Mid-window, as a caller would arrive.
      fake(NOW + 400);
      const server = fixedWindow(DIALECTS[dialect]!);
      t.handler = server.handler;
      const { http } = client();
      const ended: number[] = [];
      for (let i = 0; i < 12; i++) ended.push((await settle(http.get(`${t.server.url}/r`))).status);
      expect(ended).toEqual(Array(12).fill(200));
      expect(server.refused()).toBe(0);
      expect(t.server.requests).toHaveLength(12);
    },
  );
});

describe('a 429 with no hint backs off as a 503 does (finding 3)', () => {
  test.each([429, 503])('a %i: its retry waits the jittered backoff (random 0.5 × 500 ms)', async (status) => {
    fake(NOW);
    t.handler = (_req, res, index) => res.writeHead(index === 0 ? status : 200).end();
    const { http } = client({ random: () => 0.5 });
    const response = await settle(http.get(`${t.server.url}/r`), 1);
    expect(response.config.retryState).toMatchObject({ attempts: 2, delaysMs: [250] });
  });

  test('four 429s without a hint are spread over the backoff, not sent within milliseconds', async () => {
    fake(NOW);
    const sentAt: number[] = [];
    t.handler = (_req, res) => {
      sentAt.push(Date.now());
      res.writeHead(429).end();
    };
    const { http } = client({ random: () => 0.5, retries: 3 });
    await rejection(settle(http.get(`${t.server.url}/r`), 1));
    const gaps = sentAt.slice(1).map((at, i) => at - sentAt[i]!);
    // Full jitter at 0.5 of 500, 1000, 2000 ms; the limiter's turns may only add to them.
    expect(gaps[0]).toBeGreaterThanOrEqual(250);
    expect(gaps[1]).toBeGreaterThanOrEqual(500);
    expect(gaps[2]).toBeGreaterThanOrEqual(1000);
  });
});

describe('waits reported as they happen (finding 4)', () => {
  test("a 503's retry behind a 5 s hold another call's 429 set on its route: onRetry and delaysMs say the hold", async () => {
    fake(NOW);
    const retries: RetryEvent[] = [];
    const seen: Array<[string, number]> = [];
    const options: RetryPluginOptions = { onRetry: (e) => void retries.push(e) };
    const { http, plugin } = client(options);
    // One route, two calls told apart by their query: a Retry-After of 5 s holds the route's calls.
    t.handler = (req, res) => {
      seen.push([req.url, Date.now()]);
      const first = seen.filter(([url]) => url === req.url).length === 1;
      if (!first) return res.writeHead(200).end('ok');
      if (req.url === '/r?call=throttled') return res.writeHead(429, { 'retry-after': '5' }).end();
      // The 503 answers once the 429 holds the route.
      const answer = (): void => {
        if ((plugin.limiter(`${t.server.url}/r`)?.pausedUntil ?? 0) > Date.now()) res.writeHead(503).end();
        else setImmediate(answer);
      };
      answer();
    };
    const calls = Promise.all([http.get(`${t.server.url}/r?call=throttled`), http.get(`${t.server.url}/r?call=flaky`)]);
    const [, flaky] = (await settle(calls, 10)) as AxiosResponse[];
    const event = retries.find((e) => e.reason === '503')!;
    expect(event).toMatchObject({ delaySource: 'rate-limit' });
    expect(event.delayMs).toBeGreaterThanOrEqual(4990);
    expect(event.delayMs).toBeLessThanOrEqual(5000);
    // The wait it really had: the hold, then its turn behind the throttled call's retry (one
    // interval of the limiter's seed rate, 20 a second).
    const waited = flaky!.config.retryState!.delaysMs[0]!;
    expect(waited).toBeGreaterThanOrEqual(4990);
    expect(waited).toBeLessThanOrEqual(5100);
    // The retry reached the server when delaysMs says it left (the 503 was answered right before).
    const [first, second] = seen.filter(([url]) => url === '/r?call=flaky').map(([, at]) => at);
    expect(Math.abs(second! - first! - waited)).toBeLessThanOrEqual(60);
  });
});

describe('dialects (finding 5)', () => {
  test("GitHub's secondary limit (403 with Retry-After) is waited out and retried; a bare 403 is not", async () => {
    fake(NOW);
    t.handler = (req, res, index) =>
      req.url === '/bare'
        ? res.writeHead(403).end('forbidden')
        : index === 0
          ? res.writeHead(403, { 'retry-after': '2' }).end('secondary rate limit')
          : res.writeHead(200).end('ok');
    const { http } = client();
    const response = await settle(http.get(`${t.server.url}/secondary`), 10);
    expect(response.config.retryState).toMatchObject({ attempts: 2 });
    expect(t.server.requests).toHaveLength(2);
    const error = await rejection(settle(http.get(`${t.server.url}/bare`)));
    expect(stateOf(error)).toMatchObject({ attempts: 1, stopReason: 'not-retryable' });
  });

  test('a POST refused by a 403 throttle was not processed: it is retried without a deduped key', async () => {
    fake(NOW);
    t.handler = (_req, res, index) =>
      index === 0 ? res.writeHead(403, { 'retry-after': '1' }).end() : res.writeHead(201).end('made');
    const { http } = client();
    const response = await settle(http.post(`${t.server.url}/issues`, { title: 'x' }), 10);
    expect(response.status).toBe(201);
    expect(t.server.requests.map((r) => r.body)).toEqual(['{"title":"x"}', '{"title":"x"}']);
  });

  test("OpenAI's spent quota with its limit: the retry waits one request's share of the refill", async () => {
    fake(NOW);
    t.handler = (_req, res, index) =>
      index === 0
        ? res
            .writeHead(429, {
              'x-ratelimit-limit-requests': '500',
              'x-ratelimit-remaining-requests': '0',
              'x-ratelimit-reset-requests': '1m0s',
            })
            .end()
        : res.writeHead(200).end('ok');
    const { http } = client();
    const response = await settle(http.get(`${t.server.url}/v1/chat`), 1);
    // 60 s to refill 500: one request is back after 120 ms.
    expect(response.config.retryState).toMatchObject({ attempts: 2, delaysMs: [120] });
  });

  test("OpenAI's spent quota without its limit, whole again in 1s: the retry waits that second, not a backoff", async () => {
    fake(NOW);
    t.handler = (_req, res, index) =>
      index === 0
        ? res.writeHead(429, { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1s' }).end()
        : res.writeHead(200).end('ok');
    const { http } = client({ random: () => 0.5 });
    const response = await settle(http.get(`${t.server.url}/v1/chat`), 1);
    expect(response.config.retryState).toMatchObject({ attempts: 2, delaysMs: [1000] });
    expect(t.server.requests).toHaveLength(2);
  });

  test("Anthropic's 529 (overloaded) is retried as a 503 is", async () => {
    t.handler = (_req, res, index) => res.writeHead(index === 0 ? 529 : 200).end();
    const { http } = client();
    const response = await http.get(`${t.server.url}/v1/messages`);
    expect(response.config.retryState).toMatchObject({ attempts: 2 });
  });

  test.each([
    ['Stripe-Should-Retry: false stops a retryable 503', 503, 'false', 1, 'stripe-should-retry: false'],
    ['Stripe-Should-Retry: true retries a 409 without a key', 409, 'true', 2, undefined],
  ])('%s', async (_name, status, says, attempts, reason) => {
    t.handler = (_req, res, index) =>
      index === 0 ? res.writeHead(status, { 'stripe-should-retry': says }).end() : res.writeHead(200).end();
    const retries: RetryEvent[] = [];
    const { http } = client({ onRetry: (e) => void retries.push(e) });
    const outcome = await http.get(`${t.server.url}/v1/charges`).then(
      (response) => response.config.retryState!,
      (error: unknown) => stateOf(error),
    );
    expect(outcome.attempts).toBe(attempts);
    expect(t.server.requests).toHaveLength(attempts);
    if (reason !== undefined) expect(outcome.stopReason).toBe('not-retryable');
  });
});
