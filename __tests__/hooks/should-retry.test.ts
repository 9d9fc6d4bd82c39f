/**
 * Users in control: `shouldRetry` overrides the table but never the guards, `beforeAttempt` runs
 * per attempt (token refresh, signing, rate limiting), and `isRetryableFailure` exposes the table.
 * Real node:http servers on 127.0.0.1.
 */
import axios, { AxiosError } from 'axios';
import { Readable } from 'node:stream';
import { RetryBudget, isRetryableFailure, retryPlugin } from '../../lib';
import type { AttemptInfo, GiveUpEvent, RetryContext, RetryPluginOptions } from '../../lib';
import { fake, rejection } from '../support/helpers';
import { serverPerTest } from '../support/test-server';
import type { Handler } from '../support/test-server';

const t = serverPerTest();

function setup(options: RetryPluginOptions = {}) {
  const http = axios.create();
  const plugin = retryPlugin({ random: () => 0, budget: false, breaker: false, ...options });
  plugin.install(http);
  t.plugins.push(plugin);
  return { http, plugin };
}

const statuses =
  (...list: number[]): Handler =>
  (_req, res, index) =>
    res.writeHead(list[Math.min(index, list.length - 1)]!).end(`{"n":${index}}`);

describe('shouldRetry overrides the table', () => {
  test('true retries what the table would not (a 500); the context says what the table decided', async () => {
    t.handler = statuses(500, 200);
    const seen: RetryContext[] = [];
    const { http } = setup({
      shouldRetry: (ctx) => {
        seen.push(ctx);
        return ctx.response?.status === 500 ? true : undefined;
      },
    });
    const response = await http.get(`${t.server.url}/r`);
    expect(response.status).toBe(200);
    expect(t.server.requests).toHaveLength(2);
    expect(seen[0]).toMatchObject({
      attempt: 1,
      method: 'GET',
      keyed: false,
      decision: { retry: false, reason: '500', stopReason: 'not-retryable' },
    });
    expect(seen[0]!.error).toBeInstanceOf(AxiosError);
    // Called after the resolved response too.
    expect(seen[1]).toMatchObject({ attempt: 2, error: undefined, decision: { retry: false, reason: 'success' } });
  });

  test('false stops what the table would retry (a 503): one request, not-retryable', async () => {
    t.handler = statuses(503, 200);
    const { http } = setup({ shouldRetry: () => false });
    const error = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(error.response?.status).toBe(503);
    expect(error.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'not-retryable' });
  });

  test('undefined keeps the table; an async predicate is awaited', async () => {
    t.handler = statuses(503, 404);
    const { http } = setup({ shouldRetry: async () => undefined });
    const error = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(error.response?.status).toBe(404);
    expect(error.config?.retryState).toMatchObject({ attempts: 2, stopReason: 'not-retryable' });
  });

  test('it never bypasses the guards: retries, the budget, and a consumed stream body', async () => {
    t.handler = statuses(500);
    const always = () => true;
    const { http } = setup({ retries: 2, shouldRetry: always });
    const exhausted = (await rejection(http.get(`${t.server.url}/a`))) as unknown as AxiosError;
    expect(exhausted.config?.retryState).toMatchObject({ attempts: 3, stopReason: 'retries-exhausted' });

    const budget = new RetryBudget({ ratio: 0, minPerSecond: 0 });
    const noBudget = setup({ budget, shouldRetry: always }).http;
    const spent = (await rejection(noBudget.get(`${t.server.url}/b`))) as unknown as AxiosError;
    expect(spent.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'budget-exhausted' });

    const before = t.server.requests.length;
    const streamed = (await rejection(
      http.put(`${t.server.url}/upload`, Readable.from(['chunk']), { headers: { 'Content-Type': 'text/plain' } }),
    )) as unknown as AxiosError;
    expect(t.server.requests.length - before).toBe(1);
    expect(streamed.config?.retryState?.stopReason).toBe('not-retryable');
  });

  test('a cancelled call is never retried, whatever the predicate says', async () => {
    t.handler = () => undefined;
    const controller = new AbortController();
    const { http } = setup({ shouldRetry: () => true });
    setTimeout(() => controller.abort(), 30);
    const error = await rejection(http.get(`${t.server.url}/r`, { signal: controller.signal }));
    expect(axios.isCancel(error)).toBe(true);
    expect(t.server.requests).toHaveLength(1);
  });

  test('a predicate that throws fails the call (hook-failed), it does not mean "do not retry"', async () => {
    t.handler = statuses(503, 200);
    const { http } = setup({
      shouldRetry: () => {
        throw new Error('predicate bug');
      },
    });
    const error = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(error.response?.status).toBe(503);
    expect(error.config?.retryState).toMatchObject({ stopReason: 'hook-failed' });
    expect((error.config?.retryState?.hookError as Error).message).toBe('predicate bug');
  });

  test('overriding the keyless-POST rule repeats the POST (the user’s choice)', async () => {
    t.handler = statuses(503, 201);
    const { http } = setup({
      idempotencyKey: false,
      shouldRetry: (ctx) => (ctx.error !== undefined && ctx.method === 'POST') || undefined,
    });
    expect((await http.post(`${t.server.url}/pay`, { a: 1 })).status).toBe(201);
    expect(t.server.requests).toHaveLength(2);
  });
});

describe('shouldRetry on a successful status with a failing body', () => {
  const pending = (body: unknown) => (body as { status?: string } | undefined)?.status === 'pending';

  test('a 200 that says "pending" is retried until it says "done"', async () => {
    t.handler = (_req, res, index) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{"status":"${index < 2 ? 'pending' : 'done'}"}`);
    const { http } = setup({ shouldRetry: ({ response }) => (response && pending(response.data)) || undefined });
    const response = await http.get(`${t.server.url}/job`);
    expect(response.data).toEqual({ status: 'done' });
    expect(response.config.retryState).toMatchObject({ attempts: 3 });
    expect(response.config.retryState?.stopReason).toBeUndefined();
  });

  test('when retries run out on a 2xx, the call resolves with the last response and says why; no onGiveUp', async () => {
    t.handler = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"pending"}');
    const gaveUp: GiveUpEvent[] = [];
    const { http } = setup({
      retries: 2,
      shouldRetry: ({ response }) => (response && pending(response.data)) || undefined,
      onGiveUp: (e) => void gaveUp.push(e),
    });
    const response = await http.get(`${t.server.url}/job`);
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ status: 'pending' });
    expect(response.config.retryState).toMatchObject({ attempts: 3, stopReason: 'retries-exhausted' });
    expect(t.server.requests).toHaveLength(3);
    expect(gaveUp).toEqual([]);
  });

  test('onRetry for a retried response gets an ERR_SHOULD_RETRY error carrying that response', async () => {
    t.handler = statuses(200, 200);
    let n = 0;
    const codes: Array<string | undefined> = [];
    const { http } = setup({
      shouldRetry: () => (n++ === 0 ? true : undefined),
      onRetry: (e) => void codes.push(`${e.error.code}:${e.error.response?.status}`),
    });
    await http.get(`${t.server.url}/r`);
    expect(codes).toEqual(['ERR_SHOULD_RETRY:200']);
  });
});

describe('beforeAttempt: per-attempt work', () => {
  test('runs before every attempt, the first included, and its header changes reach each attempt', async () => {
    t.handler = statuses(503, 503, 200);
    const infos: AttemptInfo[] = [];
    let token = 0;
    const { http } = setup({
      beforeAttempt: async (config, info) => {
        infos.push(info);
        // A refreshed token per attempt, and a signature over a per-attempt timestamp.
        token += 1;
        config.headers.set('Authorization', `Bearer t${token}`);
        config.headers.set('X-Signed-At', String(1000 + info.attempt));
      },
    });
    await http.get(`${t.server.url}/r`);
    expect(infos.map((i) => i.attempt)).toEqual([1, 2, 3]);
    expect(infos[0]!.timeLeftMs).toBeUndefined();
    expect(t.server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer t1', 'Bearer t2', 'Bearer t3']);
    expect(t.server.requests.map((r) => r.headers['x-signed-at'])).toEqual(['1001', '1002', '1003']);
  });

  test('a limiter in beforeAttempt keeps 2 requests/s across retries (4 calls, 2 retries each)', async () => {
    fake();
    t.handler = statuses(503, 503, 503, 503, 200);
    // The recipe from docs/guides/per-request-overrides.md: a token bucket of 2 per second.
    const limiter = (perSecond: number) => {
      let next = Date.now();
      return () => {
        const at = Math.max(Date.now(), next);
        next = at + 1000 / perSecond;
        return new Promise<void>((resolve) => setTimeout(resolve, at - Date.now()));
      };
    };
    const arrivals: number[] = [];
    const sentAt: number[] = [];
    const take = limiter(2);
    t.handler = (_req, res) => {
      arrivals.push(Date.now());
      res.writeHead(503).end();
    };
    const { http } = setup({
      retries: 2,
      beforeAttempt: async () => {
        await take();
        sentAt.push(Date.now());
      },
    });
    const calls = Array.from({ length: 4 }, (_, i) => http.get(`${t.server.url}/c${i}`).catch(() => undefined));
    for (let i = 0; i < 140 && arrivals.length < 12; i++) {
      await jest.advanceTimersByTimeAsync(50);
      for (let j = 0; j < 3; j++) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await Promise.all(calls);
    expect(arrivals).toHaveLength(12);
    // No 1-second window holds more than two sends, and the server saw the 12 spread over ~5.5 s.
    for (const start of sentAt)
      expect(sentAt.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(2);
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeGreaterThanOrEqual(5400);
  });

  test('bounded by the deadline and by aborts: a hook that never returns does not hold the call', async () => {
    const { http } = setup({ beforeAttempt: () => new Promise<void>(() => undefined) });
    const started = Date.now();
    const late = (await rejection(
      http.get(`${t.server.url}/r`, { retry: { deadlineMs: 100 } }),
    )) as unknown as AxiosError;
    expect(late.config?.retryState?.stopReason).toBe('deadline');
    expect(Date.now() - started).toBeLessThan(1000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const aborted = await rejection(http.get(`${t.server.url}/r`, { signal: controller.signal }));
    expect(axios.isCancel(aborted)).toBe(true);
    expect(t.server.requests).toHaveLength(0);
  });

  test('a hook that throws before the first attempt: an AxiosError (hook-failed), nothing sent, one onGiveUp', async () => {
    const gaveUp: GiveUpEvent[] = [];
    const { http } = setup({
      beforeAttempt: () => {
        throw new Error('no token');
      },
      onGiveUp: (e) => void gaveUp.push(e),
    });
    const error = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(axios.isAxiosError(error)).toBe(true);
    expect((error.cause as Error).message).toBe('no token');
    expect(error.config?.retryState).toMatchObject({ attempts: 0, stopReason: 'hook-failed' });
    expect(gaveUp).toHaveLength(1);
    expect(t.server.requests).toHaveLength(0);
  });
});

describe('isRetryableFailure: the table as a function', () => {
  test('says what the table would decide, and why', async () => {
    t.handler = statuses(503);
    const { http } = setup({ retries: 0 });
    const getError = await rejection(http.get(`${t.server.url}/r`));
    expect(isRetryableFailure(getError)).toEqual({ retry: true, reason: '503' });
    const postError = await rejection(http.post(`${t.server.url}/r`, {}, { retry: { idempotencyKey: false } }));
    expect(isRetryableFailure(postError)).toEqual({ retry: false, reason: '503', stopReason: 'non-idempotent' });
    expect(isRetryableFailure(postError, { keyed: true })).toEqual({ retry: true, reason: '503' });
    expect(isRetryableFailure(getError, { statusCodes: [500] })).toMatchObject({ retry: false, reason: '503' });
    expect(() => isRetryableFailure(getError, { statusCodes: ['x'] as never })).toThrow(/statusCodes/);
  });
});
