import axios from 'axios';
import type { AxiosError, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import nock from 'nock';
import { CircuitOpenError, retryPlugin } from '../../lib';
import type { CircuitStateChange, RetryPluginOptions } from '../../lib';
import { fake, rejection, until } from '../support/helpers';
import { script, useNock } from '../support/nock-helpers';

const A = 'http://a.test';
const B = 'http://b.test';

useNock();
afterEach(() => {
  jest.useRealTimers();
  nock.cleanAll();
});

function setup(options: RetryPluginOptions = {}) {
  const changes: CircuitStateChange[] = [];
  const plugin = retryPlugin({
    retries: 0,
    budget: false,
    breaker: { volumeThreshold: 5, resetTimeout: 30_000 },
    // 0.5: the open-state wait is exactly resetTimeout (its ±25 % jitter at the middle).
    random: () => 0.5,
    onCircuitStateChange: (change) => void changes.push(change),
    ...options,
  });
  const client = axios.create();
  plugin.install(client);
  return { plugin, client, changes };
}

test('opens after the threshold; while open calls fail with CircuitOpenError and nothing is sent', async () => {
  const seen = script(A, 'get', '/r', [503]);
  const { plugin, client, changes } = setup();
  for (let i = 0; i < 5; i++) await rejection(client.get(`${A}/r`));
  expect(seen).toHaveLength(5);
  expect(changes).toEqual([{ origin: 'http://a.test:80', state: 'open' }]);

  const error = await rejection(client.get(`${A}/r`));
  expect(error).toBeInstanceOf(CircuitOpenError);
  expect(axios.isAxiosError(error)).toBe(true);
  expect((error as unknown as AxiosError).code).toBe('ERR_CIRCUIT_OPEN');
  expect((error as unknown as AxiosError).config?.retryState).toEqual({
    attempts: 0,
    delaysMs: [],
    stopReason: 'circuit-open',
  });
  expect(seen).toHaveLength(5);
  await plugin.close();
});

test('a call waiting to retry when other calls open the breaker stops there, with the last real error as cause', async () => {
  fake();
  const seen = script(A, 'get', '/r', [503]);
  const { plugin, client } = setup();
  const waiting = rejection(client.get(`${A}/r`, { retry: { retries: 10, baseDelayMs: 1000 } }));
  await until(() => seen.length === 1);
  // Calls are counted when they end: five other failed calls open it while this one waits.
  for (let i = 0; i < 5; i++) await rejection(client.get(`${A}/r`));
  expect(plugin.breaker(A)?.opened).toBe(true);
  await jest.advanceTimersByTimeAsync(1000);
  const error = (await waiting) as unknown as CircuitOpenError;
  expect(error).toBeInstanceOf(CircuitOpenError);
  expect(seen).toHaveLength(6);
  expect((error.cause as AxiosError).response?.status).toBe(503);
  expect(error.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'circuit-open' });
  await plugin.close();
});

test('after resetTimeout one probe goes out; success closes the breaker', async () => {
  fake();
  const seen = script(A, 'get', '/r', [503, 503, 503, 503, 503, 200]);
  const { plugin, client, changes } = setup();
  for (let i = 0; i < 5; i++) await rejection(client.get(`${A}/r`));
  await jest.advanceTimersByTimeAsync(30_000);
  expect(changes.map((c) => c.state)).toEqual(['open', 'half-open']);
  // Two calls at once in half-open: one probe is sent, the other is refused without sending.
  const [probe, other] = await Promise.allSettled([client.get(`${A}/r`), client.get(`${A}/r`)]);
  expect(probe.status).toBe('fulfilled');
  expect(other.status === 'rejected' && other.reason).toBeInstanceOf(CircuitOpenError);
  expect(seen).toHaveLength(6);
  expect(changes.map((c) => c.state)).toEqual(['open', 'half-open', 'closed']);
  expect((await client.get(`${A}/r`)).status).toBe(200);
  expect(seen).toHaveLength(7);
  await plugin.close();
});

test('a failed probe re-opens it', async () => {
  fake();
  const seen = script(A, 'get', '/r', [503]);
  const { plugin, client, changes } = setup();
  for (let i = 0; i < 5; i++) await rejection(client.get(`${A}/r`));
  await jest.advanceTimersByTimeAsync(30_000);
  await rejection(client.get(`${A}/r`));
  expect(seen).toHaveLength(6);
  expect(changes.map((c) => c.state)).toEqual(['open', 'half-open', 'open']);
  expect(await rejection(client.get(`${A}/r`))).toBeInstanceOf(CircuitOpenError);
  expect(seen).toHaveLength(6);
  await plugin.close();
});

test('404s and 422s, however many, never open it', async () => {
  const gone = script(A, 'get', '/gone', [404]);
  const bad = script(A, 'post', '/bad', [422]);
  const { plugin, client, changes } = setup();
  for (let i = 0; i < 30; i++) {
    await rejection(client.get(`${A}/gone`));
    await rejection(client.post(`${A}/bad`, {}));
  }
  expect(gone).toHaveLength(30);
  expect(bad).toHaveLength(30);
  expect(changes).toEqual([]);
  expect(plugin.breaker(A)?.opened).toBe(false);
  await plugin.close();
});

test('a breaker for origin A does not affect origin B', async () => {
  script(A, 'get', '/r', [503]);
  const b = script(B, 'get', '/r', [200]);
  const { plugin, client } = setup();
  for (let i = 0; i < 5; i++) await rejection(client.get(`${A}/r`));
  expect(await rejection(client.get(`${A}/r`))).toBeInstanceOf(CircuitOpenError);
  expect((await client.get(`${B}/r`)).status).toBe(200);
  expect(b).toHaveLength(1);
  await plugin.close();
});

test('the default breaker needs its volume threshold: a few failing calls of a quiet client do not open it', async () => {
  const seen = script(A, 'get', '/r', [503]);
  const plugin = retryPlugin({ budget: false, random: () => 0 });
  const client = axios.create();
  plugin.install(client);
  // Three failed calls (18 failed attempts) stay under the default volumeThreshold of 10 calls.
  for (let i = 0; i < 3; i++) {
    const error = (await rejection(client.get(`${A}/r`))) as unknown as AxiosError;
    expect(error.config?.retryState?.stopReason).toBe('retries-exhausted');
  }
  expect(seen).toHaveLength(18);
  expect(plugin.breaker(A)?.opened).toBe(false);
  await plugin.close();
});

test('1,000 origins create at most maxOrigins breakers and one shared timer; close() leaves none', async () => {
  fake();
  const adapter = (config: InternalAxiosRequestConfig): Promise<AxiosResponse> =>
    Promise.resolve({ data: 'ok', status: 200, statusText: 'OK', headers: {}, config });
  const plugin = retryPlugin({ budget: { maxOrigins: 50 }, breaker: { maxOrigins: 100 } });
  const client = axios.create({ adapter });
  plugin.install(client);
  const before = jest.getTimerCount();
  for (let i = 0; i < 1000; i++) await client.get(`http://host-${i}.test/r`);
  expect(jest.getTimerCount() - before).toBe(1);
  let breakers = 0;
  let budgets = 0;
  for (let i = 0; i < 1000; i++) {
    if (plugin.breaker(`http://host-${i}.test/`)) breakers++;
    if (plugin.budget(`http://host-${i}.test/`)) budgets++;
  }
  expect(breakers).toBe(100);
  expect(budgets).toBe(50);
  expect(plugin.breaker('http://host-999.test/')).toBeDefined();
  expect(plugin.breaker('http://host-0.test/')).toBeUndefined();
  await plugin.close();
  expect(jest.getTimerCount() - before).toBe(0);
});
