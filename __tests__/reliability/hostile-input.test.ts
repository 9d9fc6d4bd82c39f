/**
 * Bad input from a server or a caller gets a clear answer: hostile Retry-After values never hang a
 * call nor make it retry in a tight loop; a bad caller-supplied Idempotency-Key is refused before
 * anything is sent; URLs from user input cannot grow breakers and budgets past their LRU limits.
 */
import http from 'node:http';
import axios from 'axios';
import type { AxiosAdapter, AxiosInstance, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { retryPlugin } from '../../lib';
import type { RetryEvent, RetryPlugin } from '../../lib';
import { startServer } from '../support/test-server';
import type { TestServer } from '../support/test-server';

const BASE = 10;
const CAP = 100;
/** Full jitter with random 0.5 and base 10: 5 ms before the first retry, 10 ms before the second. */
const BACKOFF = [5, 10];

describe('hostile Retry-After values, through a real server', () => {
  let server: TestServer;
  let agent: http.Agent;
  let client: AxiosInstance;
  let plugin: RetryPlugin | undefined;
  let retryAfter: string | string[];

  beforeAll(async () => {
    server = await startServer((_req, res) => {
      res.setHeader('retry-after', retryAfter);
      res.writeHead(503).end();
    });
    agent = new http.Agent({ keepAlive: true });
    client = axios.create({ httpAgent: agent, proxy: false });
  });
  afterEach(async () => {
    await plugin?.close();
    plugin = undefined;
  });
  afterAll(async () => {
    agent.destroy();
    await server.close();
  });

  async function callWith(value: string | string[], mode: 'clamp' | 'fail' = 'clamp') {
    retryAfter = value;
    const events: RetryEvent[] = [];
    plugin = retryPlugin({
      retries: 2,
      baseDelayMs: BASE,
      maxDelayMs: CAP,
      retryAfter: mode,
      random: () => 0.5,
      breaker: false,
      budget: false,
      onRetry: (event) => void events.push(event),
    });
    const eject = plugin.install(client);
    const before = server.requests.length;
    const started = performance.now();
    const error: unknown = await client.get(`${server.url}/x`).then(
      () => undefined,
      (e: unknown) => e,
    );
    const elapsedMs = performance.now() - started;
    eject();
    if (!axios.isAxiosError(error)) throw new Error('expected an AxiosError');
    return {
      elapsedMs,
      sent: server.requests.length - before,
      delays: events.map((e) => e.delayMs),
      sources: events.map((e) => e.delaySource),
      stopReason: error.config?.retryState?.stopReason,
      headerSeen: events[0]?.error.response?.headers['retry-after'] as unknown,
    };
  }

  // [value, waits chosen, where they came from]
  const cases: Array<[string, string | string[], number[], 'backoff' | 'retry-after']> = [
    ['a day in seconds', '86400', [CAP, CAP], 'retry-after'],
    ['negative', '-1', BACKOFF, 'backoff'],
    ['exponent notation', '1e9', BACKOFF, 'backoff'],
    ['hex', '0x10', BACKOFF, 'backoff'],
    ['fractional with a unit', '2.5s', BACKOFF, 'backoff'],
    ['negative fractional', '-1.5', BACKOFF, 'backoff'],
    ['padded with spaces', '  3 ', [CAP, CAP], 'retry-after'],
    ['two headers', ['5', '7'], [CAP, CAP], 'retry-after'],
    ['a date in the year 9999', 'Fri, 31 Dec 9999 23:59:59 GMT', [CAP, CAP], 'retry-after'],
    ['a date in the past', 'Sun, 06 Nov 1994 08:49:37 GMT', BACKOFF, 'backoff'],
    ['zero', '0', BACKOFF, 'backoff'],
    ['junk', 'soon, please', BACKOFF, 'backoff'],
  ];

  test.each(cases)('%s (%j): waits %j from %s, never 0, never hangs', async (_name, value, delays, source) => {
    const result = await callWith(value);
    expect(result.sent).toBe(3);
    expect(result.stopReason).toBe('retries-exhausted');
    expect(result.delays).toEqual(delays);
    expect(result.sources).toEqual([source, source]);
    // The waits really happened (no tight loop), and the call ended soon after them (no hang).
    const waited = delays.reduce((a, b) => a + b, 0);
    expect(result.elapsedMs).toBeGreaterThanOrEqual(waited - 2);
    expect(result.elapsedMs).toBeLessThan(waited + 1000);
  });

  test('two Retry-After headers reach the plugin as one value', async () => {
    const result = await callWith(['5', '7']);
    expect(typeof result.headerSeen).toBe('string');
  });

  test.each([
    ['86400', '86400'],
    ['a date in the year 9999', 'Fri, 31 Dec 9999 23:59:59 GMT'],
  ])("retryAfter: 'fail' with %s gives up at once as retry-after-too-long", async (_name, value) => {
    const result = await callWith(value, 'fail');
    expect(result).toMatchObject({ sent: 1, delays: [], stopReason: 'retry-after-too-long' });
    expect(result.elapsedMs).toBeLessThan(500);
  });
});

/** An adapter that answers at once and records what it was asked to send. */
function stubAdapter(sent: InternalAxiosRequestConfig[]): AxiosAdapter {
  return (config) => {
    sent.push(config);
    const response: AxiosResponse = { data: 'ok', status: 200, statusText: 'OK', headers: {}, config };
    return Promise.resolve(response);
  };
}

describe('a bad caller-supplied Idempotency-Key is refused before anything is sent', () => {
  const badKeys: Array<[string, string]> = [
    ['CR/LF (header injection)', 'order-1\r\nX-Admin: yes'],
    ['a bare LF', 'order-1\nx'],
    ['non-ASCII', 'заказ-1'],
    ['256 characters', 'k'.repeat(256)],
    ['empty', ''],
  ];
  let plugin: RetryPlugin;
  let client: AxiosInstance;
  let sent: InternalAxiosRequestConfig[];

  beforeEach(() => {
    sent = [];
    plugin = retryPlugin();
    client = axios.create({ adapter: stubAdapter(sent) });
    plugin.install(client);
  });
  afterEach(() => plugin.close());

  test.each(badKeys)('per-request retry.idempotencyKey with %s: TypeError naming the field', async (_name, key) => {
    const error: unknown = await client
      .post('http://api.test/pay', { n: 1 }, { retry: { idempotencyKey: key } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/config\.retry\.idempotencyKey must be 1-255 printable ASCII/);
    expect(sent).toEqual([]);
  });

  test.each(badKeys.filter(([name]) => ['non-ASCII', '256 characters'].includes(name)))(
    'an Idempotency-Key header with %s: TypeError naming the header',
    async (_name, key) => {
      const error: unknown = await client
        .post('http://api.test/pay', { n: 1 }, { headers: { 'Idempotency-Key': key } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/Idempotency-Key header must be 1-255 printable ASCII/);
      expect(sent).toEqual([]);
    },
  );

  // axios (1.21) strips CR and LF from every header value when it builds config.headers, before
  // any interceptor runs, so the plugin never sees them there: nothing can be injected, and the
  // stripped value is the key. Only the per-request field can be refused for CR/LF.
  test('an Idempotency-Key header with CR/LF: axios strips them first, so nothing is injected', async () => {
    const response = await client.post(
      'http://api.test/pay',
      {},
      { headers: { 'Idempotency-Key': 'a-1\r\nX-Admin: yes' } },
    );
    expect(sent).toHaveLength(1);
    const headers = sent[0]!.headers;
    expect(headers.get('Idempotency-Key')).toBe('a-1X-Admin: yes');
    expect(headers.has('X-Admin')).toBe(false);
    expect(response.config.retryState?.idempotencyKey).toBe('a-1X-Admin: yes');
  });

  test('a generate() that returns a bad key: TypeError naming generate(), nothing sent', async () => {
    await plugin.close();
    plugin = retryPlugin({ idempotencyKey: { generate: () => 'a\r\nb' } });
    client = axios.create({ adapter: stubAdapter(sent) });
    plugin.install(client);
    await expect(client.post('http://api.test/pay', {})).rejects.toThrow(/idempotencyKey\.generate\(\) must be 1-255/);
    expect(sent).toEqual([]);
  });

  test('a 255-character printable key is accepted and sent as given', async () => {
    const key = '~'.repeat(255);
    await client.post('http://api.test/pay', {}, { retry: { idempotencyKey: key } });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.get('Idempotency-Key')).toBe(key);
  });
});

describe('10,000 distinct origins (URLs from user input)', () => {
  const ORIGINS = 10_000;
  const url = (i: number) => `http://tenant-${i}.example.test/p`;

  async function callEveryOrigin(plugin: RetryPlugin): Promise<InternalAxiosRequestConfig[]> {
    const sent: InternalAxiosRequestConfig[] = [];
    const client = axios.create({ adapter: stubAdapter(sent) });
    plugin.install(client);
    for (let i = 0; i < ORIGINS; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => client.get(url(i + j))));
    }
    return sent;
  }

  function countKept(plugin: RetryPlugin) {
    let breakers = 0;
    let budgets = 0;
    for (let i = 0; i < ORIGINS; i++) {
      if (plugin.breaker(url(i)) !== undefined) breakers++;
      if (plugin.budget(url(i)) !== undefined) budgets++;
    }
    return { breakers, budgets };
  }

  test('the default limits keep 1,000 breakers and 1,000 budgets: the most recently used', async () => {
    const plugin = retryPlugin();
    try {
      const sent = await callEveryOrigin(plugin);
      expect(sent).toHaveLength(ORIGINS);
      expect(countKept(plugin)).toEqual({ breakers: 1000, budgets: 1000 });
      expect(plugin.breaker(url(ORIGINS - 1000))).toBeDefined();
      expect(plugin.breaker(url(ORIGINS - 1001))).toBeUndefined();
    } finally {
      await plugin.close();
    }
  });

  test('custom limits hold too, and an evicted breaker is shut down', async () => {
    const plugin = retryPlugin({ breaker: { maxOrigins: 50 }, budget: { maxOrigins: 20 } });
    try {
      const sent: InternalAxiosRequestConfig[] = [];
      const client = axios.create({ adapter: stubAdapter(sent) });
      plugin.install(client);
      await client.get(url(0));
      const first = plugin.breaker(url(0));
      expect(first).toBeDefined();
      await callEveryOrigin(plugin);
      expect(countKept(plugin)).toEqual({ breakers: 50, budgets: 20 });
      // url(0) was called again at the start of the sweep, then evicted: the old breaker is closed down.
      expect(first!.isShutdown).toBe(true);
      expect(plugin.breaker(url(0))).toBeUndefined();
    } finally {
      await plugin.close();
    }
  });
});
