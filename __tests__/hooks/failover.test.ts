import axios from 'axios';
import type { InternalAxiosRequestConfig } from 'axios';
import { CircuitOpenError, retryPlugin } from '../../lib';
import type { RetryPluginOptions } from '../../lib';
import { fake, realTick, rejection, until } from '../support/helpers';
import { startServer, statuses } from '../support/test-server';
import type { TestServer } from '../support/test-server';

// A hook that moves a call to another origin (docs/guides/failover.md): each attempt is counted by
// the breaker and the budget of the origin it was sent to.

let primary: TestServer;
let mirror: TestServer;
const plugins: Array<{ close(): Promise<void> }> = [];
beforeEach(async () => {
  primary = await startServer(statuses(503));
  mirror = await startServer(statuses(200));
});
afterEach(async () => {
  jest.useRealTimers();
  while (plugins.length) await plugins.pop()!.close();
  await Promise.all([primary.close(), mirror.close()]);
});

/** A client whose calls go to the primary, with a plugin that waits 0 ms between attempts. */
function setup(options: RetryPluginOptions) {
  const plugin = retryPlugin({ random: () => 0, breaker: { volumeThreshold: 5, resetTimeout: 60_000 }, ...options });
  plugins.push(plugin);
  const client = axios.create({ baseURL: primary.url });
  plugin.install(client);
  return { plugin, client };
}

const toMirror = (config: InternalAxiosRequestConfig): void => {
  config.baseURL = mirror.url;
};

/** `call`, run to its end on fake timers (real I/O, and the zero-length waits of random() = 0). */
async function settled<T>(call: Promise<T>): Promise<T> {
  let done = false;
  void call.then(
    () => (done = true),
    () => (done = true),
  );
  await until(() => done);
  return call;
}

test("an onRetry hook that moves calls to a mirror: each origin's breaker and budget count the attempts sent to it", async () => {
  const { plugin, client } = setup({ onRetry: ({ config }) => toMirror(config) });
  for (let i = 0; i < 4; i++) expect((await client.get('/r')).status).toBe(200);
  await realTick();
  expect(primary.requests).toHaveLength(4);
  expect(mirror.requests).toHaveLength(4);
  // Each call failed at the primary and succeeded at the mirror.
  expect(plugin.breaker(primary.url)!.stats).toMatchObject({ fires: 4, failures: 4, successes: 0 });
  expect(plugin.breaker(mirror.url)!.stats).toMatchObject({ fires: 4, failures: 0, successes: 4 });
  // First attempts went to the primary, the retries to the mirror.
  expect(plugin.budget(primary.url)!.state()).toMatchObject({ requests: 4, retries: 0, granted: 0 });
  expect(plugin.budget(mirror.url)!.state()).toMatchObject({ requests: 0, retries: 4, granted: 4 });
});

test("the primary's breaker opens on the primary's failures alone; a request interceptor then sends first attempts to the mirror", async () => {
  const { plugin, client } = setup({ onRetry: ({ config }) => toMirror(config) });
  client.interceptors.request.use((config) => {
    if (plugin.breaker(primary.url)?.opened) toMirror(config);
    return config;
  });
  for (let i = 0; i < 5; i++) await client.get('/r');
  await realTick();
  expect(plugin.breaker(primary.url)!.opened).toBe(true);
  expect(plugin.breaker(mirror.url)!.closed).toBe(true);
  for (let i = 0; i < 3; i++) expect((await client.get('/r')).status).toBe(200);
  expect(primary.requests).toHaveLength(5);
  expect(mirror.requests).toHaveLength(8);
  expect(plugin.budget(mirror.url)!.state()).toMatchObject({ requests: 3, retries: 5 });
});

test('a beforeAttempt hook that moves the first attempt: nothing reaches the primary or its guards', async () => {
  const { plugin, client } = setup({ beforeAttempt: (config) => toMirror(config) });
  expect((await client.get('/r')).status).toBe(200);
  await realTick();
  expect(primary.requests).toHaveLength(0);
  expect(mirror.requests).toHaveLength(1);
  expect(plugin.breaker(primary.url)!.stats).toMatchObject({ fires: 0 });
  expect(plugin.budget(primary.url)!.state()).toMatchObject({ requests: 0 });
  expect(plugin.breaker(mirror.url)!.stats).toMatchObject({ fires: 1, successes: 1 });
  expect(plugin.budget(mirror.url)!.state()).toMatchObject({ requests: 1 });
});

test('a call moved to a mirror whose breaker is open stops with circuit-open naming the mirror, and sends it nothing', async () => {
  const down = await startServer(statuses(503));
  try {
    const { plugin, client } = setup({ onRetry: ({ config }) => void (config.baseURL = down.url) });
    // Five failed calls of its own open the mirror's breaker (no retries: the hook is not asked).
    for (let i = 0; i < 5; i++) await rejection(client.get(`${down.url}/r`, { retry: { retries: 0 } }));
    await realTick();
    expect(plugin.breaker(down.url)!.opened).toBe(true);
    const error = await rejection(client.get('/r'));
    expect(error).toBeInstanceOf(CircuitOpenError);
    expect(error.config).toMatchObject({ retryState: { attempts: 1, stopReason: 'circuit-open' } });
    expect(error.message).toContain(new URL(down.url).port);
    expect(down.requests).toHaveLength(5);
    expect(primary.requests).toHaveLength(1);
  } finally {
    await down.close();
  }
});

test("a half-open probe that fails at the primary and succeeds at the mirror re-opens the primary's breaker", async () => {
  // On fake timers: with a real 75 ms open-state wait, a loaded machine could let it pass (half-open)
  // between a failure that opens the breaker and the check that it is open.
  fake();
  const { plugin, client } = setup({
    breaker: { volumeThreshold: 5, resetTimeout: 100 },
    onRetry: ({ config }) => toMirror(config),
  });
  for (let i = 0; i < 5; i++) await settled(rejection(client.get('/r', { retry: { retries: 0 } })));
  const breaker = plugin.breaker(primary.url)!;
  expect(breaker.opened).toBe(true);
  // random 0: the open-state wait is 75 ms.
  await jest.advanceTimersByTimeAsync(74);
  expect(breaker.opened).toBe(true);
  await jest.advanceTimersByTimeAsync(1);
  expect(breaker.halfOpen).toBe(true);
  expect((await settled(client.get('/r'))).status).toBe(200);
  await realTick();
  expect(primary.requests).toHaveLength(6);
  expect(mirror.requests).toHaveLength(1);
  // The probe's verdict is the primary's own failure, not the mirror's answer.
  expect(breaker.opened).toBe(true);
  expect(plugin.breaker(mirror.url)!.stats).toMatchObject({ fires: 1, successes: 1 });
});
