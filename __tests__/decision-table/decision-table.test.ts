import axios, { AxiosError } from 'axios';
import nock from 'nock';
import type { RetryEvent } from '../../lib';
import { client, fake, rejection, scriptedAdapter, until } from '../support/helpers';
import { closeAll, script, useNock } from '../support/nock-helpers';

const API = 'http://api.test';

useNock();
afterEach(closeAll);

describe('retryable statuses', () => {
  test('503 → 503 → 200 succeeds in 3 attempts', async () => {
    const seen = script(API, 'get', '/items', [503, 503, 200]);
    const { http } = client();
    const response = await http.get(`${API}/items`);
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ n: 3 });
    expect(seen).toHaveLength(3);
    expect(response.config.retryState).toEqual({ attempts: 3, delaysMs: [0, 0] });
  });

  test('a GET that keeps getting a bare 429 is sent 1 + retries times, each retry after the backoff a 503 would wait', async () => {
    fake();
    const seen = script(API, 'get', '/items', [429]);
    const retries: RetryEvent[] = [];
    const { http } = client({ retries: 3, onRetry: (e) => void retries.push(e) });
    const call = rejection(http.get(`${API}/items`));
    // Time moves only by the wait each retry announced.
    for (let k = 1; k <= 3; k++) {
      await until(() => retries.length === k);
      await jest.advanceTimersByTimeAsync(retries[k - 1]!.delayMs);
    }
    const error = await call;
    jest.useRealTimers();
    expect(seen).toHaveLength(4);
    expect((error as unknown as AxiosError).response?.status).toBe(429);
    expect((error as unknown as AxiosError).config?.retryState).toMatchObject({
      attempts: 4,
      stopReason: 'retries-exhausted',
    });
    // Four bare refusals of one call are no evidence that the rate causes them (the route's answers
    // must be a fifth refusals, five at least): no limiter paces them, each waits its backoff (0 here:
    // the helper's random source is 0), as a 503's would.
    expect(retries.map((e) => [e.reason, e.delaySource, e.delayMs])).toEqual([
      ['429', 'backoff', 0],
      ['429', 'backoff', 0],
      ['429', 'backoff', 0],
    ]);
  });

  test.each([502, 503, 504])('a GET that keeps getting %i is sent 1 + retries times', async (status) => {
    const seen = script(API, 'get', '/items', [status]);
    const { http } = client({ retries: 3 });
    const error = await rejection(http.get(`${API}/items`));
    expect(seen).toHaveLength(4);
    expect(axios.isAxiosError(error)).toBe(true);
    expect((error as unknown as AxiosError).response?.status).toBe(status);
    expect((error as unknown as AxiosError).config?.retryState).toEqual({
      attempts: 4,
      delaysMs: [0, 0, 0],
      stopReason: 'retries-exhausted',
    });
  });

  test('default retries is 5: at most 6 attempts', async () => {
    const seen = script(API, 'get', '/items', [503]);
    const { http } = client();
    await rejection(http.get(`${API}/items`));
    expect(seen).toHaveLength(6);
  });
});

describe('statuses that are never retried', () => {
  test.each([400, 401, 403, 404, 422, 500, 501])(
    '%i is sent once and fails with the original error',
    async (status) => {
      const seen = script(API, 'get', '/items', [status, 200]);
      const { http } = client();
      const error = (await rejection(http.get(`${API}/items`))) as unknown as AxiosError;
      expect(seen).toHaveLength(1);
      expect(error.response?.status).toBe(status);
      expect(error.response?.data).toEqual({ n: 1 });
      expect(error.config?.retryState).toEqual({ attempts: 1, delaysMs: [], stopReason: 'not-retryable' });
    },
  );

  test('409 on a call without a key is sent once', async () => {
    const seen = script(API, 'put', '/items/1', [409, 200]);
    const { http } = client();
    await rejection(http.put(`${API}/items/1`, { a: 1 }));
    expect(seen).toHaveLength(1);
  });

  test('409 on a call with a key is retried (the first request is still in progress)', async () => {
    const seen = script(API, 'post', '/payments', [409, 409, 201]);
    const { http } = client({ idempotencyKey: { serverDedupes: true } });
    const response = await http.post(`${API}/payments`, { amount: 5 });
    expect(response.status).toBe(201);
    expect(seen).toHaveLength(3);
  });

  test('409 on a PUT carrying the caller’s own key is retried, and the key is reported', async () => {
    const seen = script(API, 'put', '/items/1', [409, 200]);
    const { http } = client();
    const response = await http.put(`${API}/items/1`, { a: 1 }, { headers: { 'idempotency-key': 'put-7' } });
    expect(response.status).toBe(200);
    expect(seen.map((s) => s.headers['idempotency-key'])).toEqual(['put-7', 'put-7']);
    expect(response.config.retryState).toEqual({ attempts: 2, delaysMs: [0], idempotencyKey: 'put-7' });
  });

  test('a PUT with the caller’s own key that succeeds at once: the key is sent, retryState does not name it', async () => {
    // The plugin looks for a key it did not make only once a call has failed (docs/guides/idempotency-keys.md).
    const seen = script(API, 'put', '/items/1', [200]);
    const { http } = client();
    const response = await http.put(`${API}/items/1`, { a: 1 }, { headers: { 'Idempotency-Key': 'put-8' } });
    expect(seen.map((s) => s.headers['idempotency-key'])).toEqual(['put-8']);
    expect(response.config.retryState).toEqual({ attempts: 1, delaysMs: [] });
  });

  test('custom statusCodes: 500 retried, 503 no longer', async () => {
    const a = script(API, 'get', '/a', [500, 200]);
    const b = script(API, 'get', '/b', [503, 200]);
    const { http } = client({ statusCodes: [500] });
    expect((await http.get(`${API}/a`)).status).toBe(200);
    await rejection(http.get(`${API}/b`));
    expect(a).toHaveLength(2);
    expect(b).toHaveLength(1);
  });
});

describe('methods', () => {
  test.each(['get', 'head', 'options', 'put', 'delete'] as const)(
    '%s is retried on 503 without a key',
    async (method) => {
      const seen: string[] = [];
      nock(API)
        .intercept('/r', method.toUpperCase())
        .times(2)
        .reply(() => {
          seen.push(method);
          return [seen.length === 1 ? 503 : 200, ''];
        });
      const { http } = client();
      const response = await http.request({ method, url: `${API}/r` });
      expect(response.status).toBe(200);
      expect(seen).toHaveLength(2);
    },
  );

  test.each(['post', 'patch'] as const)(
    '%s without a key is not retried on 503: stop reason non-idempotent',
    async (method) => {
      const seen = script(API, method, '/r', [503, 200]);
      const { http } = client({ idempotencyKey: false });
      const error = (await rejection(
        http.request({ method, url: `${API}/r`, data: { a: 1 } }),
      )) as unknown as AxiosError;
      expect(seen).toHaveLength(1);
      expect(error.response?.status).toBe(503);
      expect(error.config?.retryState?.stopReason).toBe('non-idempotent');
    },
  );

  test('POST without a key is not retried on ECONNRESET', async () => {
    const net = scriptedAdapter(['ECONNRESET', 200]);
    const { http } = client({ idempotencyKey: false });
    const error = (await rejection(http.post(`${API}/r`, { a: 1 }, { adapter: net.adapter }))) as unknown as AxiosError;
    expect(error.code).toBe('ECONNRESET');
    expect(error.config?.retryState?.stopReason).toBe('non-idempotent');
    expect(net.attempts).toHaveLength(1);
  });

  test('POST without a key is retried on ECONNREFUSED: it never reached the server', async () => {
    const net = scriptedAdapter(['ECONNREFUSED', 201]);
    const { http } = client({ idempotencyKey: false });
    const response = await http.post(`${API}/r`, { a: 1 }, { adapter: net.adapter });
    expect(response.status).toBe(201);
    expect(response.config.retryState?.attempts).toBe(2);
    expect(net.attempts).toHaveLength(2);
  });

  test('POST without a key is not retried on 504: the origin may have done the work', async () => {
    const seen = script(API, 'post', '/r', [504, 200]);
    const { http } = client({ idempotencyKey: false });
    const error = (await rejection(http.post(`${API}/r`, {}))) as unknown as AxiosError;
    expect(seen).toHaveLength(1);
    expect(error.config?.retryState?.stopReason).toBe('non-idempotent');
  });

  test('a POST that got a 400 is not-retryable, not non-idempotent', async () => {
    script(API, 'post', '/r', [400]);
    const { http } = client({ idempotencyKey: false });
    const error = (await rejection(http.post(`${API}/r`, {}))) as unknown as AxiosError;
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
  });
});

describe('network failures', () => {
  test.each([
    'ECONNRESET',
    'ETIMEDOUT',
    'ECONNABORTED',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EPIPE',
    'ENETUNREACH',
    'EHOSTUNREACH',
    'ERR_NETWORK',
  ])('a GET that fails with %s is retried', async (code) => {
    const net = scriptedAdapter([code, 200]);
    const { http } = client();
    const response = await http.get(`${API}/r`, { adapter: net.adapter });
    expect(response.status).toBe(200);
    expect(net.attempts).toHaveLength(2);
    expect(response.config.retryState?.attempts).toBe(2);
  });

  test('an unknown error code is not retried', async () => {
    const net = scriptedAdapter(['EWEIRD', 200]);
    const { http } = client();
    const error = (await rejection(http.get(`${API}/r`, { adapter: net.adapter }))) as unknown as AxiosError;
    expect(error.code).toBe('EWEIRD');
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(net.attempts).toHaveLength(1);
  });
});
