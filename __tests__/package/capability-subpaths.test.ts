/**
 * The capability subpaths in Node, where the main entry carries hedging, fault injection, the rate
 * limiter, the rate-limit header dialects and the breaker itself: code written for a browser build
 * (`hedging()`, `chaos()`, `rateLimiting()`, `rateLimitHeaders()`, `breaker()`) runs unchanged, and the plain options a Node
 * user writes keep working.
 */
import axios from 'axios';
import type { AxiosAdapter, AxiosResponse, GenericAbortSignal } from 'axios';
import { retryPlugin } from 'axios-resilience';
import type { RateLimitOptions, RetryPluginOptions } from 'axios-resilience';
import { chaos } from 'axios-resilience/chaos';
import { hedging } from 'axios-resilience/hedging';
import { rateLimitHeaders } from 'axios-resilience/rate-limit-headers';
import { rateLimiting } from 'axios-resilience/rate-limiting';
import { breaker } from 'axios-resilience/breaker';
import { startFaultServer } from '../../lib/testing';
import type { FaultServer } from '../../lib/testing';

let server: FaultServer;
afterEach(async () => {
  await server?.close();
});

/** `response`, handed on after `ms`, or a CanceledError as soon as `signal` aborts. */
function heldUntilAborted(response: AxiosResponse, signal: GenericAbortSignal | undefined, ms: number) {
  return new Promise<AxiosResponse>((resolve, reject) => {
    const timer = setTimeout(() => resolve(response), ms);
    signal?.addEventListener?.('abort', () => {
      clearTimeout(timer);
      reject(new axios.CanceledError());
    });
  });
}

test('hedging() hands the options back as given, and the plugin hedges with them', async () => {
  const options = { delayMs: 20, maxHedges: 1 };
  expect(hedging(options)).toBe(options);
  server = await startFaultServer({ routes: { 'GET /slow': ['200'] } });
  // The first copy the plugin sends is the slow one (its answer held 2 s, until it is aborted): decided
  // where the copies are made, not by which socket reaches the server first, which on a loaded machine
  // can be the hedge's.
  const send = axios.getAdapter('http');
  let sent = 0;
  const adapter: AxiosAdapter = (config) => {
    const first = sent++ === 0;
    return send(config).then((response) => (first ? heldUntilAborted(response, config.signal, 2000) : response));
  };
  const plugin = retryPlugin({ hedge: hedging(options) });
  const http = axios.create({ adapter });
  plugin.install(http);
  try {
    const response = await http.get(`${server.url}/slow`);
    expect(response.config.retryState).toMatchObject({ hedges: 1, hedgeWon: true });
  } finally {
    await plugin.close();
  }
});

test('chaos() hands the options back as given, and the plugin injects with them', async () => {
  const options = { faults: [{ rate: 1, status: 503 }] };
  expect(chaos(options)).toBe(options);
  server = await startFaultServer({ routes: { 'GET /r': ['200'] } });
  const plugin = retryPlugin({ retries: 1, baseDelayMs: 1, chaos: chaos(options) });
  const http = axios.create();
  plugin.install(http);
  try {
    const error = (await http.get(`${server.url}/r`).catch((e: unknown) => e)) as {
      response: { status: number };
      config: { retryState: { injected: number } };
    };
    expect(error.response.status).toBe(503);
    expect(error.config.retryState.injected).toBe(2);
    expect(server.requests).toHaveLength(0);
  } finally {
    await plugin.close();
  }
});

test("the dialects are read by default and with rateLimitHeaders() ({ dialects: 'all' }), not with rateLimitHeaders: false", async () => {
  expect(rateLimitHeaders()).toEqual({ dialects: 'all' });
  const spent = { status: 429, headers: { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '100' } };
  server = await startFaultServer({ routes: { 'GET /a': [spent], 'GET /b': [spent], 'GET /c': [spent] } });
  const stopReason = async (path: string, options: RetryPluginOptions): Promise<unknown> => {
    const plugin = retryPlugin({ retries: 0, ...options });
    const http = axios.create();
    plugin.install(http);
    try {
      const error = (await http.get(`${server.url}${path}`).catch((e: unknown) => e)) as {
        config: { retryState: { stopReason: string } };
      };
      return error.config.retryState.stopReason;
    } finally {
      await plugin.close();
    }
  };
  // The quota is spent for 100 s: the call is refused with its retryAt, not retried.
  expect(await stopReason('/a', {})).toBe('rate-limited');
  expect(await stopReason('/b', { rateLimitHeaders: rateLimitHeaders() })).toBe('rate-limited');
  // Unread, it is a bare 429 with no retry left.
  expect(await stopReason('/c', { rateLimitHeaders: false })).toBe('retries-exhausted');
});

test("with rateLimitHeaders: false the server's own wait, resource and say are still read", async () => {
  // The quota is spent for 100 s by the dialect's fields; unread, the call waits the 20 ms it was asked to.
  const asked = {
    status: 429,
    headers: { 'retry-after-ms': '20', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '100' },
  };
  const refused = { status: 503, headers: { 'x-should-retry': 'false' } };
  server = await startFaultServer({ routes: { 'GET /wait': [asked, '200'], 'GET /say': [refused, '200'] } });
  const plugin = retryPlugin({ rateLimitHeaders: false, baseDelayMs: 1, jitter: 'none' });
  const http = axios.create();
  plugin.install(http);
  try {
    const waited = await http.get(`${server.url}/wait`);
    expect([waited.status, waited.config.retryState?.delaysMs]).toEqual([200, [20]]);
    const said = (await http.get(`${server.url}/say`).catch((e: unknown) => e)) as {
      config: { retryState: { stopReason: string; attempts: number } };
    };
    expect(said.config.retryState).toMatchObject({ stopReason: 'not-retryable', attempts: 1 });
    expect([server.requestsTo('GET /wait').length, server.requestsTo('GET /say').length]).toEqual([2, 1]);
  } finally {
    await plugin.close();
  }
});

test('rateLimiting() hands the options back as given ({} without any); the default plugin and one given it both engage a limiter', async () => {
  const options = { maxQueue: 100 };
  expect(rateLimiting(options)).toBe(options);
  expect(rateLimiting()).toEqual({});
  const throttled = { status: 429, headers: { 'retry-after-ms': '20' } };
  server = await startFaultServer({ routes: { 'GET /a': [throttled, '200'], 'GET /b': [throttled, '200'] } });
  const limiterAfter = async (rateLimit: RateLimitOptions | undefined, path: string): Promise<unknown> => {
    const plugin = retryPlugin(rateLimit === undefined ? { baseDelayMs: 1 } : { baseDelayMs: 1, rateLimit });
    const http = axios.create();
    plugin.install(http);
    try {
      const response = await http.get(`${server.url}${path}`);
      expect(response.config.retryState?.delaysMs).toEqual([20]);
      return plugin.limiter(`${server.url}${path}`)?.state;
    } finally {
      await plugin.close();
    }
  };
  expect(await limiterAfter(undefined, '/a')).toBe('on');
  expect(await limiterAfter(rateLimiting(options), '/b')).toBe('on');
});

test('breaker() hands the options back as given ({} without any); the plugin given it opens its breaker (opossum) with them', async () => {
  const options = { volumeThreshold: 2, resetTimeout: 10_000 };
  expect(breaker(options)).toBe(options);
  expect(breaker()).toEqual({});
  server = await startFaultServer({ routes: { 'GET /down': ['503', '503', '503'] } });
  const plugin = retryPlugin({ retries: 0, breaker: breaker(options) });
  const http = axios.create();
  plugin.install(http);
  try {
    const codes: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const error = (await http.get(`${server.url}/down`).catch((e: unknown) => e)) as { code?: string };
      codes.push(error.code);
    }
    expect(codes).toEqual(['ERR_BAD_RESPONSE', 'ERR_BAD_RESPONSE', 'ERR_CIRCUIT_OPEN']);
    expect(server.requestsTo('GET /down')).toHaveLength(2);
    expect(plugin.breaker(server.url)?.opened).toBe(true);
  } finally {
    await plugin.close();
  }
});
