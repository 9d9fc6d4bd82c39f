import type { AxiosError } from 'axios';
import type { RetryEvent } from '../../lib';
import { client, fake, rejection, scriptedAdapter, until } from '../support/helpers';
import { closeAll, script, useNock } from '../support/nock-helpers';

const API = 'http://api.test';

useNock();
afterEach(async () => {
  jest.useRealTimers();
  await closeAll();
});

describe('backoff', () => {
  test('full jitter with an injected random source: waits random() × base × 2^retry', async () => {
    script(API, 'get', '/r', [503, 503, 503, 200]);
    const { http } = client({ random: () => 0.5, baseDelayMs: 4, maxDelayMs: 100 });
    const response = await http.get(`${API}/r`);
    expect(response.config.retryState?.delaysMs).toEqual([2, 4, 8]);
  });

  test('the cap bounds every wait', async () => {
    script(API, 'get', '/r', [503, 503, 503, 503, 200]);
    const { http } = client({ jitter: 'none', baseDelayMs: 2, maxDelayMs: 5 });
    const response = await http.get(`${API}/r`);
    expect(response.config.retryState?.delaysMs).toEqual([2, 4, 5, 5]);
  });

  test('onRetry sees each wait before it starts, with attempt counts and reasons', async () => {
    const net = scriptedAdapter(['ECONNRESET', 503, 200]);
    const events: Array<Omit<RetryEvent, 'error' | 'config'>> = [];
    const { http } = client({
      random: () => 0.5,
      baseDelayMs: 2,
      onRetry: ({ attempt, delayMs, delaySource, reason }) => {
        events.push({ attempt, delayMs, delaySource, reason });
      },
    });
    await http.get(`${API}/r`, { adapter: net.adapter });
    expect(events).toEqual([
      { attempt: 1, delayMs: 1, delaySource: 'backoff', reason: 'ECONNRESET' },
      { attempt: 2, delayMs: 2, delaySource: 'backoff', reason: '503' },
    ]);
  });

  test('the wait is really waited (fake timers): nothing is sent before it ends', async () => {
    fake();
    const seen = script(API, 'get', '/r', [503, 200]);
    let waits = 0;
    const { http } = client({ random: () => 0.5, baseDelayMs: 1000, onRetry: () => void waits++ });
    const call = http.get(`${API}/r`);
    await until(() => waits === 1);
    expect(seen).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(499);
    expect(seen).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    await until(() => seen.length === 2);
    expect(seen).toHaveLength(2);
    expect((await call).status).toBe(200);
  });
});

describe('Retry-After', () => {
  test('429 with Retry-After: 2 waits 2 s, replacing the backoff', async () => {
    fake();
    const seen = script(API, 'get', '/r', [[429, { 'Retry-After': '2' }], 200]);
    let waits = 0;
    const { http } = client({ random: () => 0.5, onRetry: () => void waits++ });
    const call = http.get(`${API}/r`);
    await until(() => waits === 1);
    expect(seen).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1999);
    expect(seen).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    await until(() => seen.length === 2);
    expect(seen).toHaveLength(2);
    const response = await call;
    expect(response.config.retryState?.delaysMs).toEqual([2000]);
  });

  test('an HTTP-date Retry-After waits until that date', async () => {
    fake(Date.UTC(2026, 0, 1, 12, 0, 0));
    const seen = script(API, 'get', '/r', [[503, { 'Retry-After': 'Thu, 01 Jan 2026 12:00:05 GMT' }], 200]);
    let waits = 0;
    const { http } = client({ onRetry: () => void waits++ });
    const call = http.get(`${API}/r`);
    await until(() => waits === 1);
    await jest.advanceTimersByTimeAsync(4999);
    expect(seen).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    await until(() => seen.length === 2);
    expect((await call).config.retryState?.delaysMs).toEqual([5000]);
  });

  test('Retry-After: 86400 is clamped to maxDelayMs', async () => {
    fake();
    const seen = script(API, 'get', '/r', [[503, { 'Retry-After': '86400' }], 200]);
    let waits = 0;
    const { http } = client({ maxDelayMs: 30000, onRetry: () => void waits++ });
    const call = http.get(`${API}/r`);
    await until(() => waits === 1);
    await jest.advanceTimersByTimeAsync(30000);
    await until(() => seen.length === 2);
    expect((await call).config.retryState?.delaysMs).toEqual([30000]);
  });

  test("retryAfter: 'fail' gives up at once when the server asks for more than the cap", async () => {
    const seen = script(API, 'get', '/r', [[503, { 'Retry-After': '86400' }], 200]);
    const { http } = client({ retryAfter: 'fail', maxDelayMs: 30000 });
    const error = (await rejection(http.get(`${API}/r`))) as unknown as AxiosError;
    expect(seen).toHaveLength(1);
    expect(error.response?.status).toBe(503);
    expect(error.config?.retryState).toEqual({ attempts: 1, delaysMs: [], stopReason: 'retry-after-too-long' });
  });

  test('Retry-After: 1.5 waits 1500 ms (decimal seconds)', async () => {
    fake();
    const seen = script(API, 'get', '/r', [[503, { 'Retry-After': '1.5' }], 200]);
    const events: RetryEvent[] = [];
    const { http } = client({ onRetry: (e) => void events.push(e) });
    const call = http.get(`${API}/r`);
    await until(() => events.length === 1);
    await jest.advanceTimersByTimeAsync(1499);
    expect(seen).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    const response = await call;
    expect(seen).toHaveLength(2);
    expect(response.config.retryState?.delaysMs).toEqual([1500]);
    expect(events[0]?.delaySource).toBe('retry-after');
  });

  test.each(['0', 'Thu, 01 Jan 1970 00:00:00 GMT', 'garbage', '-1', '1.5s', ''])(
    'Retry-After %p falls back to the jittered backoff',
    async (value) => {
      script(API, 'get', '/r', [[503, { 'Retry-After': value }], 200]);
      const events: RetryEvent[] = [];
      const { http } = client({ random: () => 0.5, baseDelayMs: 8, onRetry: (e) => void events.push(e) });
      const response = await http.get(`${API}/r`);
      expect(response.config.retryState?.delaysMs).toEqual([4]);
      expect(events[0]?.delaySource).toBe('backoff');
    },
  );

  test('a 400 with Retry-After is still not retried', async () => {
    const seen = script(API, 'get', '/r', [[400, { 'Retry-After': '1' }], 200]);
    const { http } = client();
    await rejection(http.get(`${API}/r`));
    expect(seen).toHaveLength(1);
  });
});
