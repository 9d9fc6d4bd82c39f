/**
 * `shouldRetry` overrides the decision table over failures, but never the guards (retries, the
 * budget, a consumed stream body) nor the write rule; `shouldRetryResponse` alone can retry a 2xx
 * whose body says the work is not done. Real node:http servers on 127.0.0.1.
 */
import axios, { AxiosError } from 'axios';
import { Readable } from 'node:stream';
import { RetryBudget } from '../../lib';
import type { GiveUpEvent, RetryContext } from '../../lib';
import { rejection } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { serverPerTest, statuses } from '../support/test-server';

const t = serverPerTest();

const setup = setupOn(t);

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
    // Asked about failures only: the 200 that ended the call was not put to it.
    expect(seen).toHaveLength(1);
  });

  test('a predicate that answers true for everything does not turn a 200 into retries', async () => {
    t.handler = statuses(200);
    const { http } = setup({ shouldRetry: () => true });
    const response = await http.get(`${t.server.url}/r`);
    expect(response.status).toBe(200);
    expect(t.server.requests).toHaveLength(1);
    expect(response.config.retryState).toMatchObject({ attempts: 1, delaysMs: [] });
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

  test('it never bypasses the guards: retries, the budget, and a stream body past the replay bound', async () => {
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
      http.put(`${t.server.url}/upload`, Readable.from(['chunk']), {
        headers: { 'Content-Type': 'text/plain' },
        retry: { replay: { maxBytes: 4 } },
      }),
    )) as unknown as AxiosError;
    expect(t.server.requests.length - before).toBe(1);
    expect(t.server.requests.at(-1)!.body.toString()).toBe('chunk');
    expect(streamed.config?.retryState?.stopReason).toBe('body-not-replayable');
  });

  test('asked only while a retry is left: retries 2 asks twice (as axios-retry and retry-axios), and stops retries-exhausted', async () => {
    t.handler = statuses(503);
    const asked: number[] = [];
    const { http } = setup({ retries: 2, shouldRetry: (ctx) => void asked.push(ctx.attempt) });
    const error = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(t.server.requests).toHaveLength(3);
    expect(asked).toEqual([1, 2]);
    expect(error.config?.retryState).toMatchObject({ attempts: 3, stopReason: 'retries-exhausted' });
  });

  test('…a call it kept going against the table (a 500) stops retries-exhausted too; with retries 0 it is not asked', async () => {
    t.handler = statuses(500);
    const asked: number[] = [];
    const { http } = setup({ retries: 2, shouldRetry: (ctx) => (asked.push(ctx.attempt), true) });
    const error = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(asked).toEqual([1, 2]);
    expect(error.config?.retryState).toMatchObject({ attempts: 3, stopReason: 'retries-exhausted' });

    const none = (await rejection(http.get(`${t.server.url}/r`, { retry: { retries: 0 } }))) as unknown as AxiosError;
    expect(asked).toEqual([1, 2]);
    expect(none.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'not-retryable' });
  });

  test('a cancelled call is never retried, whatever the predicate says', async () => {
    const controller = new AbortController();
    // Cancelled once the server holds the request (not after a time: a loaded machine may not have sent it yet).
    t.handler = () => controller.abort();
    const { http } = setup({ shouldRetry: () => true });
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

  test('it never overrides the write rule: a keyless POST that got a 503 is sent once (non-idempotent)', async () => {
    t.handler = statuses(503, 201);
    const { http } = setup({
      idempotencyKey: false,
      shouldRetry: (ctx) => (ctx.error !== undefined && ctx.method === 'POST') || undefined,
    });
    const error = (await rejection(http.post(`${t.server.url}/pay`, { a: 1 }))) as unknown as AxiosError;
    expect(error.response?.status).toBe(503);
    expect(error.config?.retryState?.stopReason).toBe('non-idempotent');
    expect(t.server.requests).toHaveLength(1);
  });

  test('unsafeRetryWrites is the opt-in that lets the predicate repeat that POST', async () => {
    t.handler = statuses(503, 201);
    const { http } = setup({
      idempotencyKey: false,
      unsafeRetryWrites: true,
      shouldRetry: (ctx) => (ctx.error !== undefined && ctx.method === 'POST') || undefined,
    });
    expect((await http.post(`${t.server.url}/pay`, { a: 1 })).status).toBe(201);
    expect(t.server.requests).toHaveLength(2);
  });
});

describe('shouldRetryResponse on a successful status with a failing body', () => {
  const pending = (body: unknown) => (body as { status?: string } | undefined)?.status === 'pending';

  test('a 200 that says "pending" is retried until it says "done"', async () => {
    t.handler = (_req, res, index) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{"status":"${index < 2 ? 'pending' : 'done'}"}`);
    const { http } = setup({
      shouldRetryResponse: ({ response }) => (response && pending(response.data)) || undefined,
    });
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
      shouldRetryResponse: ({ response }) => (response && pending(response.data)) || undefined,
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
      shouldRetryResponse: () => (n++ === 0 ? true : undefined),
      onRetry: (e) => void codes.push(`${e.error.code}:${e.error.response?.status}`),
    });
    await http.get(`${t.server.url}/r`);
    expect(codes).toEqual(['ERR_SHOULD_RETRY:200']);
  });

  test('a write that got a 2xx is never sent again, whatever the predicate says', async () => {
    t.handler = statuses(201);
    const { http } = setup({ shouldRetryResponse: () => true, idempotencyKey: { serverDedupes: true } });
    const response = await http.post(`${t.server.url}/payments`, { amount: 1 });
    expect(response.status).toBe(201);
    expect(response.config.retryState).toMatchObject({ attempts: 1, stopReason: 'non-idempotent' });
    expect(t.server.requests).toHaveLength(1);
  });

  test('…unless the server says so (x-should-retry: true) or the caller opted into unsafeRetryWrites', async () => {
    t.handler = (_req, res, index) =>
      res.writeHead(202, index === 0 ? { 'x-should-retry': 'true' } : {}).end(index === 0 ? 'queued' : 'done');
    const asked = setup({ shouldRetryResponse: ({ response }) => response?.data === 'queued' || undefined });
    expect((await asked.http.post(`${t.server.url}/jobs`, {})).data).toBe('done');
    expect(t.server.requests).toHaveLength(2);
    t.handler = (_req, res, index) => res.writeHead(202).end(index === 2 ? 'queued' : 'done');
    const unsafe = setup({
      unsafeRetryWrites: true,
      shouldRetryResponse: ({ response }) => response?.data === 'queued' || undefined,
    });
    expect((await unsafe.http.post(`${t.server.url}/jobs`, {})).data).toBe('done');
    expect(t.server.requests).toHaveLength(4);
  });
});
