/**
 * Abort at every stage of a call: before the first attempt, in flight, during a retry wait, and
 * after the origin's breaker has opened. Each time the call rejects promptly with axios's
 * CanceledError, onRetry is not called after the abort, and no further request reaches the server.
 */
import http from 'node:http';
import axios from 'axios';
import type { AxiosInstance } from 'axios';
import { retryPlugin } from '../../lib';
import type { RetryEvent, RetryPlugin } from '../../lib';
import { pause, startServer, until } from '../support/test-server';
import type { Handler, TestServer } from '../support/test-server';

/** An abort must end the call well before any wait or response it interrupted would have. */
const PROMPT_MS = 300;

let server: TestServer;
let agent: http.Agent;
let client: AxiosInstance;
let plugin: RetryPlugin;
let retries: RetryEvent[];
let handler: Handler;

beforeEach(async () => {
  retries = [];
  handler = (_req, res) => res.writeHead(200).end('ok');
  server = await startServer((req, res, i) => handler(req, res, i));
  agent = new http.Agent({ keepAlive: false });
  client = axios.create({ httpAgent: agent, proxy: false });
  plugin = retryPlugin({
    baseDelayMs: 10,
    random: () => 0.5,
    onRetry: (event) => void retries.push(event),
    breaker: { volumeThreshold: 3, errorThresholdPercentage: 50, resetTimeout: 60_000 },
  });
  plugin.install(client);
});

afterEach(async () => {
  await plugin.close();
  agent.destroy();
  await server.close();
});

/** Asserts the call rejected with a CanceledError within PROMPT_MS of `abortedAt`. */
async function expectCancelled(call: Promise<unknown>, abortedAt: () => number): Promise<unknown> {
  const error = await call.then(
    () => {
      throw new Error('the call resolved');
    },
    (e: unknown) => e,
  );
  expect(Date.now() - abortedAt()).toBeLessThan(PROMPT_MS);
  expect(axios.isCancel(error)).toBe(true);
  expect(error).toBeInstanceOf(axios.CanceledError);
  return error;
}

/** After an abort, give the plugin time to misbehave, then check the server saw nothing new. */
async function expectNoFurtherRequest(seen: number): Promise<void> {
  await pause(100);
  expect(server.requests).toHaveLength(seen);
}

describe('abort before the first attempt', () => {
  test('an already aborted AbortSignal: CanceledError, nothing sent', async () => {
    const controller = new AbortController();
    controller.abort();
    const at = Date.now();
    await expectCancelled(client.post(`${server.url}/pay`, { n: 1 }, { signal: controller.signal }), () => at);
    await expectNoFurtherRequest(0);
    expect(retries).toEqual([]);
  });

  test('an already cancelled CancelToken: CanceledError, nothing sent', async () => {
    const source = axios.CancelToken.source();
    source.cancel('caller gave up');
    const at = Date.now();
    const error = await expectCancelled(client.get(`${server.url}/x`, { cancelToken: source.token }), () => at);
    expect((error as Error).message).toBe('caller gave up');
    await expectNoFurtherRequest(0);
  });
});

describe('abort in flight', () => {
  test('abort while the server holds the response: CanceledError, no retry', async () => {
    handler = () => undefined; // never answers
    const controller = new AbortController();
    const call = client.post(`${server.url}/pay`, { n: 1 }, { signal: controller.signal });
    await until(() => server.requests.length === 1);
    const at = Date.now();
    controller.abort();
    const error = await expectCancelled(call, () => at);
    expect(axios.isCancel(error) && error.config?.retryState?.stopReason).toBe('aborted');
    await expectNoFurtherRequest(1);
    expect(retries).toEqual([]);
  });
});

describe('abort during a retry wait', () => {
  beforeEach(() => {
    // Ask for a 10 s wait: only the abort can end the call quickly.
    handler = (_req, res) => res.writeHead(503, { 'retry-after': '10' }).end();
  });

  test('AbortSignal aborted mid-wait: CanceledError at once, the timer is cleared, no further request', async () => {
    const controller = new AbortController();
    const call = client.post(
      `${server.url}/pay`,
      { n: 1 },
      { signal: controller.signal, retry: { idempotencyKey: { serverDedupes: true } } },
    );
    await until(() => retries.length === 1);
    await pause(20);
    const at = Date.now();
    controller.abort();
    const error = await expectCancelled(call, () => at);
    expect(retries.map((r) => r.delayMs)).toEqual([10_000]);
    expect(axios.isCancel(error) && error.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'aborted' });
    await expectNoFurtherRequest(1);
    expect(retries).toHaveLength(1);
  });

  test('CancelToken cancelled mid-wait: CanceledError with its message, no further request', async () => {
    const source = axios.CancelToken.source();
    const call = client.get(`${server.url}/x`, { cancelToken: source.token });
    await until(() => retries.length === 1);
    const at = Date.now();
    source.cancel('stop waiting');
    const error = await expectCancelled(call, () => at);
    expect((error as Error).message).toBe('stop waiting');
    expect((error as Error).stack?.split('\n')[0]).toMatch(
      /^CanceledError: stop waiting \(1 attempt over \d+ ms; stopped: aborted\)$/,
    );
    await expectNoFurtherRequest(1);
    expect(retries).toHaveLength(1);
  });

  test('abort inside onRetry (before the wait starts): no wait, no further request', async () => {
    const controller = new AbortController();
    // Timed from the abort, not from the call's start: the first attempt's round trip is no part of it
    // (beside a busy loop per core, one in a hundred took over 50 ms, the slowest 230).
    let at = 0;
    await plugin.close();
    plugin = retryPlugin({
      baseDelayMs: 10,
      onRetry: (event) => {
        retries.push(event);
        at = Date.now();
        controller.abort();
      },
    });
    plugin.install(client);
    await expectCancelled(client.get(`${server.url}/x`, { signal: controller.signal }), () => at);
    await expectNoFurtherRequest(1);
    expect(retries).toHaveLength(1);
  });
});

describe('abort after the breaker opened', () => {
  test('a call waiting to retry when the breaker opens: abort rejects with CanceledError, nothing more is sent', async () => {
    // Every request fails; three failed calls (calls count when they end) open the breaker.
    // The slow call waits out a long backoff of its own: a Retry-After would now pause the whole origin
    // (issue 22), and the three calls below must reach the server to open the breaker.
    handler = (_req, res) => res.writeHead(503).end();
    const controller = new AbortController();
    const waiting = client.get(`${server.url}/slow`, { signal: controller.signal, retry: { baseDelayMs: 20_000 } });
    await until(() => retries.length === 1);
    for (let i = 0; i < 3; i++) {
      await expect(client.get(`${server.url}/fail`, { retry: { retries: 0 } })).rejects.toMatchObject({
        response: { status: 503 },
      });
    }
    expect(plugin.breaker(server.url)?.opened).toBe(true);
    const seen = server.requests.length;
    expect(seen).toBe(4);

    const at = Date.now();
    controller.abort();
    await expectCancelled(waiting, () => at);
    await expectNoFurtherRequest(seen);
    expect(retries).toHaveLength(1);

    // While it is open, a new call with an aborted signal is a CanceledError too, and sends nothing.
    const aborted = new AbortController();
    aborted.abort();
    const at2 = Date.now();
    await expectCancelled(client.get(`${server.url}/x`, { signal: aborted.signal }), () => at2);
    // And one without an abort gets the breaker's error, also without sending.
    await expect(client.get(`${server.url}/x`)).rejects.toMatchObject({ code: 'ERR_CIRCUIT_OPEN' });
    await expectNoFurtherRequest(seen);
  });
});
