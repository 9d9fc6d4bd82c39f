import axios from 'axios';
import type { AxiosError } from 'axios';
import { Readable } from 'node:stream';
import { retryPlugin } from '../../lib';
import { client, rejection } from '../support/helpers';
import { closeAll, script, useNock } from '../support/nock-helpers';

const API = 'http://api.test';

useNock();
afterEach(closeAll);

describe('per-request override', () => {
  test('retry: false leaves the call alone: one attempt, no key, no retryState', async () => {
    const seen = script(API, 'post', '/r', [503, 200]);
    const { http } = client();
    const error = (await rejection(http.post(`${API}/r`, {}, { retry: false }))) as unknown as AxiosError;
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
    expect(error.config?.retryState).toBeUndefined();
  });

  test('retry: { retries: 1 } overrides the plugin for that call only', async () => {
    const seen = script(API, 'get', '/r', [503]);
    const { http } = client({ retries: 4 });
    await rejection(http.get(`${API}/r`, { retry: { retries: 1 } }));
    expect(seen).toHaveLength(2);
    await rejection(http.get(`${API}/r`));
    expect(seen).toHaveLength(2 + 5);
  });

  test('invalid per-request options reject the call with a TypeError naming the field, nothing sent', async () => {
    const seen = script(API, 'get', '/r', [200]);
    const { http } = client();
    const error = await rejection(http.get(`${API}/r`, { retry: { retries: -1 } }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/config\.retry\.retries/);
    const jitter = await rejection(http.get(`${API}/r`, { retry: { jitter: 'wild' as never } }));
    expect(jitter.message).toMatch(/config\.retry\.jitter/);
    expect(seen).toHaveLength(0);
  });

  test('a per-request override cannot change the budget', async () => {
    const { http } = client();
    const error = await rejection(http.get(`${API}/r`, { retry: { budget: false } as never }));
    expect(error.message).toMatch(/config\.retry\.budget is not a known option/);
  });
});

describe('once per logical call', () => {
  test('user interceptors and transforms run once per call; every attempt sends identical bytes', async () => {
    const seen = script(API, 'post', '/payments', [503, 502, 201]);
    const http = axios.create({
      transformRequest: [
        (data: unknown) => {
          counts.transformRequest++;
          return JSON.stringify({ ...(data as object), stamp: counts.transformRequest });
        },
      ],
      transformResponse: [
        (data: unknown) => {
          counts.transformResponse++;
          return data;
        },
      ],
      headers: { 'Content-Type': 'application/json' },
    });
    const counts = { request: 0, response: 0, transformRequest: 0, transformResponse: 0 };
    http.interceptors.request.use((config) => {
      counts.request++;
      return config;
    });
    // The server dedupes keys, so a generated one makes the POST safe to repeat.
    const plugin = retryPlugin({
      random: () => 0,
      budget: false,
      breaker: false,
      idempotencyKey: { serverDedupes: true },
    });
    plugin.install(http);
    http.interceptors.response.use((response) => {
      counts.response++;
      return response;
    });
    const response = await http.post(`${API}/payments`, { amount: 10 });
    expect(response.status).toBe(201);
    expect(seen).toHaveLength(3);
    expect(counts).toEqual({ request: 1, response: 1, transformRequest: 1, transformResponse: 1 });
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);
    expect(JSON.parse(seen[0]!.body)).toEqual({ amount: 10, stamp: 1 });
    await plugin.close();
  });

  test('onRetry may change headers for the next attempt (a refreshed token)', async () => {
    const seen = script(API, 'get', '/r', [503, 503, 200]);
    let token = 0;
    const { http } = client({
      onRetry: async ({ config }) => {
        await Promise.resolve();
        config.headers.set('Authorization', `Bearer t${++token}`);
      },
    });
    await http.get(`${API}/r`, { headers: { Authorization: 'Bearer t0' } });
    expect(seen.map((s) => s.headers.authorization)).toEqual(['Bearer t0', 'Bearer t1', 'Bearer t2']);
  });

  test('an onRetry that throws fails the call with its own last error (hook-failed) and sends nothing more', async () => {
    const seen = script(API, 'get', '/r', [503, 200]);
    const hookError = new Error('hook broke');
    const { http } = client({
      onRetry: () => {
        throw hookError;
      },
    });
    const error = (await rejection(http.get(`${API}/r`))) as unknown as AxiosError;
    expect(error.response?.status).toBe(503);
    expect(error.config?.retryState).toMatchObject({ attempts: 1, delaysMs: [], stopReason: 'hook-failed', hookError });
    expect(seen).toHaveLength(1);
  });

  test('a stream body is sent once and not retried', async () => {
    const seen = script(API, 'put', '/upload', [503, 200]);
    const { http } = client();
    const error = (await rejection(
      http.put(`${API}/upload`, Readable.from(['chunk']), { headers: { 'Content-Type': 'text/plain' } }),
    )) as unknown as AxiosError;
    expect(seen).toHaveLength(1);
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
  });

  test('a failed config re-sent by the caller is a new logical call, not a nested retry loop', async () => {
    const seen = script(API, 'get', '/r', [503, 503, 200]);
    const { http } = client({ retries: 1 });
    const first = (await rejection(http.get(`${API}/r`))) as unknown as AxiosError;
    expect(seen).toHaveLength(2);
    const again = await http.request(first.config!);
    expect(again.status).toBe(200);
    expect(again.config.retryState).toEqual({ attempts: 1, delaysMs: [] });
  });
});

describe('install and eject', () => {
  test('install registers one request and one response interceptor; eject removes both', async () => {
    const http = axios.create();
    const handlers = (manager: unknown) => (manager as { handlers: unknown[] }).handlers.filter(Boolean).length;
    const plugin = retryPlugin({ breaker: false, budget: false, random: () => 0 });
    const eject = plugin.install(http);
    expect(handlers(http.interceptors.request)).toBe(1);
    expect(handlers(http.interceptors.response)).toBe(1);
    const seen = script(API, 'get', '/r', [503, 200]);
    eject();
    expect(handlers(http.interceptors.request)).toBe(0);
    expect(handlers(http.interceptors.response)).toBe(0);
    await rejection(http.get(`${API}/r`));
    expect(seen).toHaveLength(1);
    await plugin.close();
  });

  test('install refuses something that is not an axios instance', () => {
    const plugin = retryPlugin();
    expect(() => plugin.install({} as never)).toThrow(/install\(\) needs axios or an axios.create\(\) instance/);
  });

  test('one plugin on two instances shares its budget', async () => {
    script(API, 'get', '/r', [503]);
    const plugin = retryPlugin({
      budget: { ratio: 0, minPerSecond: 0.3, windowMs: 10000 },
      breaker: false,
      random: () => 0,
    });
    const a = axios.create();
    const b = axios.create();
    plugin.install(a);
    plugin.install(b);
    // Floor: 0.3/s × 10 s = 3 retries for the origin, whoever asks.
    const ea = (await rejection(a.get(`${API}/r`))) as unknown as AxiosError;
    const eb = (await rejection(b.get(`${API}/r`))) as unknown as AxiosError;
    expect(ea.config?.retryState?.attempts).toBe(4);
    expect(eb.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'budget-exhausted' });
    await plugin.close();
  });

  test('onGiveUp hears every final failure once, with the stop reason', async () => {
    script(API, 'get', '/gone', [404]);
    script(API, 'get', '/down', [503]);
    const reasons: string[] = [];
    const { http } = client({ retries: 1, onGiveUp: ({ stopReason }) => void reasons.push(stopReason) });
    await rejection(http.get(`${API}/gone`));
    await rejection(http.get(`${API}/down`));
    expect(reasons).toEqual(['not-retryable', 'retries-exhausted']);
  });
});

describe('attempt header', () => {
  test('off by default: nothing extra is sent', async () => {
    const seen = script(API, 'get', '/r', [503, 200]);
    const { http } = client();
    await http.get(`${API}/r`);
    expect(seen.map((s) => s.headers['x-retry-attempt'])).toEqual([undefined, undefined]);
  });

  test('attemptHeader: true numbers every attempt in X-Retry-Attempt', async () => {
    const seen = script(API, 'get', '/r', [503, 503, 200]);
    const { http } = client({ attemptHeader: true });
    await http.get(`${API}/r`);
    expect(seen.map((s) => s.headers['x-retry-attempt'])).toEqual(['1', '2', '3']);
  });

  test('a string names the header, and a request can turn it off', async () => {
    const seen = script(API, 'get', '/r', [503, 200]);
    const { http } = client({ attemptHeader: 'Attempt' });
    await http.get(`${API}/r`);
    await http.get(`${API}/r`, { retry: { attemptHeader: false } });
    expect(seen.map((s) => s.headers.attempt)).toEqual(['1', '2', undefined]);
  });

  test('a bad header name is refused', () => {
    expect(() => client({ attemptHeader: 'Bad Header' })).toThrow(
      /attemptHeader must be false, true or a valid header name/,
    );
  });
});
