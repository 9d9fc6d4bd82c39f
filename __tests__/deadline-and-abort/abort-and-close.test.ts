import axios from 'axios';
import type { AxiosError } from 'axios';
import { client, fake, rejection, until } from '../support/helpers';
import { closeAll, script, useNock } from '../support/nock-helpers';

const API = 'http://api.test';

useNock();
afterEach(async () => {
  jest.useRealTimers();
  await closeAll();
});

test('an AbortSignal cancels a pending wait at once: CanceledError, no further attempt, no timer left', async () => {
  fake();
  const seen = script(API, 'get', '/r', [503, 200]);
  const retries: number[] = [];
  const { http } = client({ random: () => 0.5, baseDelayMs: 20_000, onRetry: (e) => void retries.push(e.attempt) });
  const controller = new AbortController();
  const call = rejection(http.get(`${API}/r`, { signal: controller.signal }));
  await until(() => retries.length === 1);
  expect(jest.getTimerCount()).toBe(1); // the 10 s wait
  controller.abort();
  const error = (await call) as unknown as AxiosError;
  expect(axios.isCancel(error)).toBe(true);
  expect(error.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'aborted' });
  expect(jest.getTimerCount()).toBe(0);
  await jest.advanceTimersByTimeAsync(60_000);
  expect(seen).toHaveLength(1);
  expect(retries).toEqual([1]);
});

test('a CancelToken cancels a pending wait too', async () => {
  fake();
  const seen = script(API, 'get', '/r', [503, 200]);
  let waits = 0;
  const { http } = client({ random: () => 0.5, baseDelayMs: 20_000, onRetry: () => void waits++ });
  const source = axios.CancelToken.source();
  const call = rejection(http.get(`${API}/r`, { cancelToken: source.token }));
  await until(() => waits === 1);
  source.cancel('user left');
  const error = await call;
  expect(axios.isCancel(error)).toBe(true);
  // The token's words, and what the plugin did on the stack's first line.
  expect(error.message).toBe('user left');
  expect(error.stack?.split('\n')[0]).toBe('CanceledError: user left (1 attempt over 0 ms; stopped: aborted)');
  expect(jest.getTimerCount()).toBe(0);
  expect(seen).toHaveLength(1);
});

test('a signal aborted before the call sends nothing', async () => {
  const seen = script(API, 'get', '/r', [200]);
  const { http } = client();
  const error = await rejection(http.get(`${API}/r`, { signal: AbortSignal.abort() }));
  expect(axios.isCancel(error)).toBe(true);
  expect(seen).toHaveLength(0);
});

test('an abort during onRetry stops before the wait', async () => {
  const seen = script(API, 'get', '/r', [503, 200]);
  const controller = new AbortController();
  const { http } = client({ onRetry: () => controller.abort() });
  const error = (await rejection(http.get(`${API}/r`, { signal: controller.signal }))) as unknown as AxiosError;
  expect(axios.isCancel(error)).toBe(true);
  expect(error.config?.retryState?.stopReason).toBe('aborted');
  expect(seen).toHaveLength(1);
});

test('plugin.close() ends pending waits: the call rejects with its last error, nothing more is sent', async () => {
  fake();
  const seen = script(API, 'get', '/r', [503, 200]);
  let waits = 0;
  const { http, plugin } = client({ random: () => 0.5, baseDelayMs: 20_000, onRetry: () => void waits++ });
  const call = rejection(http.get(`${API}/r`));
  await until(() => waits === 1);
  await plugin.close();
  const error = (await call) as unknown as AxiosError;
  expect(error.response?.status).toBe(503);
  expect(error.config?.retryState?.stopReason).toBe('aborted');
  expect(jest.getTimerCount()).toBe(0);
  expect(seen).toHaveLength(1);
  // After close, calls pass through untouched.
  const after = await http.get(`${API}/r`);
  expect(after.status).toBe(200);
  expect(seen).toHaveLength(2);
  expect(after.config.retryState).toBeUndefined();
});
