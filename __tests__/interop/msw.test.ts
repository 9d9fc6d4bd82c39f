/**
 * msw (`msw/node`) answers below axios: on the http adapter it stands in for the socket, on the
 * fetch adapter for `fetch`. The plugin's retries are real requests to it, on both adapters.
 * `HttpResponse.error()` is a network error: on the fetch adapter axios reports it as ERR_NETWORK;
 * on the http adapter as a failure with no code and no response, which the plugin treats as an
 * unknown transport failure (retried for GET and keyed calls, never for a keyless POST).
 */
import axios from 'axios';
import type { AxiosError, AxiosInstance } from 'axios';
import { http as route, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { CircuitOpenError, retryPlugin } from '../../lib';
import type { GiveUpEvent, RetryPlugin, RetryPluginOptions } from '../../lib';
import { releaseMockSocketParsers } from '../support/mock-sockets';

const BASE = 'http://api.test';
const server = setupServer();
// HttpResponse.error() on the http adapter destroys msw's mock socket; see mock-sockets.ts.
releaseMockSocketParsers();

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/** Answers `steps` in turn (the last repeats) and counts what arrived. */
function script(method: 'get' | 'post', path: string, steps: Array<number | 'error'>) {
  const received: Request[] = [];
  server.use(
    route[method](`${BASE}${path}`, ({ request }) => {
      received.push(request.clone());
      const step = steps[Math.min(received.length - 1, steps.length - 1)]!;
      return step === 'error' ? HttpResponse.error() : HttpResponse.json({ n: received.length }, { status: step });
    }),
  );
  return received;
}

const failure = (promise: Promise<unknown>): Promise<AxiosError> =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as AxiosError,
  );

const ADAPTERS = ['http', 'fetch'] as const;

describe.each(ADAPTERS)('the %s adapter', (adapter) => {
  let http: AxiosInstance;
  let plugin: RetryPlugin;
  let giveUps: GiveUpEvent[];

  function install(options: RetryPluginOptions = {}): void {
    plugin = retryPlugin({
      baseDelayMs: 2,
      maxDelayMs: 10,
      random: () => 0.5,
      onGiveUp: (event) => void giveUps.push(event),
      ...options,
    });
    plugin.install(http);
  }

  beforeEach(() => {
    http = axios.create({ baseURL: BASE, adapter });
    giveUps = [];
  });
  afterEach(() => plugin.close());

  test('503, 503, 200: resolves on the third request', async () => {
    install();
    const received = script('get', '/v1/items', [503, 503, 200]);

    const response = await http.get('/v1/items');

    expect(response.status).toBe(200);
    expect(response.data).toEqual({ n: 3 });
    expect(received).toHaveLength(3);
    expect(response.config.retryState).toMatchObject({ attempts: 3, delaysMs: [1, 2] });
  });

  test('a keyed POST through 503, 503, 201 sends one key three times', async () => {
    install({ idempotencyKey: { serverDedupes: true } });
    const received = script('post', '/v1/payments', [503, 503, 201]);

    const response = await http.post('/v1/payments', { amount: 42 });

    expect(response.status).toBe(201);
    const key = response.config.retryState?.idempotencyKey;
    expect(key).toBeDefined();
    expect(received.map((r) => r.headers.get('idempotency-key'))).toEqual([key, key, key]);
    expect(await Promise.all(received.map((r) => r.text()))).toEqual(Array(3).fill('{"amount":42}'));
  });

  test('HttpResponse.error() on a GET is retried, and the retry resolves', async () => {
    install();
    const received = script('get', '/v1/items', ['error', 200]);

    const response = await http.get('/v1/items');

    expect(response.data).toEqual({ n: 2 });
    expect(received).toHaveLength(2);
    expect(response.config.retryState?.attempts).toBe(2);
    expect(giveUps).toEqual([]);
  });

  test('HttpResponse.error() on a keyless POST is not repeated: one request, non-idempotent, one onGiveUp', async () => {
    install({ idempotencyKey: false });
    const received = script('post', '/v1/payments', ['error', 201]);

    const error = await failure(http.post('/v1/payments', { amount: 42 }));

    expect(axios.isAxiosError(error)).toBe(true);
    expect(error.response).toBeUndefined();
    expect(received).toHaveLength(1);
    expect(error.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'non-idempotent' });
    expect(giveUps.map((e) => e.stopReason)).toEqual(['non-idempotent']);
  });

  test('a GET that always gets HttpResponse.error() stops after its retries, with one onGiveUp', async () => {
    install({ retries: 2 });
    const received = script('get', '/v1/items', ['error']);

    const error = await failure(http.get('/v1/items'));

    expect(received).toHaveLength(3);
    expect(error.config?.retryState).toMatchObject({ attempts: 3, stopReason: 'retries-exhausted' });
    expect(giveUps.map((e) => e.stopReason)).toEqual(['retries-exhausted']);
  });
});

describe('breaker state between tests', () => {
  const BREAKER = { volumeThreshold: 5, errorThresholdPercentage: 50, resetTimeout: 60_000 };

  /** Five failing GETs (retries: 0) open a breaker with a volume threshold of 5. */
  async function tripBreaker(http: AxiosInstance): Promise<void> {
    script('get', '/v1/items', [503]);
    for (let i = 0; i < 5; i++) await failure(http.get('/v1/items', { retry: { retries: 0 } }));
  }

  test('one plugin kept across tests carries an open breaker into the next test; close() and a fresh plugin do not', async () => {
    const http = axios.create({ baseURL: BASE });
    const shared = retryPlugin({ breaker: BREAKER, budget: false });
    const ejectShared = shared.install(http);
    try {
      // "Test 1" trips the breaker.
      await tripBreaker(http);
      expect(shared.breaker(BASE)?.opened).toBe(true);

      // "Test 2": handlers reset, the origin is healthy, but the plugin still refuses the call.
      server.resetHandlers();
      const received = script('get', '/v1/items', [200]);
      const refused = await failure(http.get('/v1/items'));
      expect(refused).toBeInstanceOf(CircuitOpenError);
      expect(received).toHaveLength(0);

      // What a test suite should do between tests: close the plugin and start a fresh one.
      ejectShared();
      await shared.close();
      const fresh = retryPlugin({ breaker: BREAKER, budget: false });
      fresh.install(http);
      try {
        expect((await http.get('/v1/items')).status).toBe(200);
        expect(received).toHaveLength(1);
      } finally {
        await fresh.close();
      }
    } finally {
      ejectShared();
      await shared.close();
    }
  });

  describe('with a fresh plugin in beforeEach and close() in afterEach', () => {
    let http: AxiosInstance;
    let plugin: RetryPlugin;
    beforeEach(() => {
      http = axios.create({ baseURL: BASE });
      plugin = retryPlugin({ breaker: BREAKER, budget: false });
      plugin.install(http);
    });
    afterEach(() => plugin.close());

    test('the first test opens the breaker for the origin', async () => {
      await tripBreaker(http);
      expect(plugin.breaker(BASE)?.opened).toBe(true);
    });

    test('the next test starts with no breaker for it, and its call goes out', async () => {
      expect(plugin.breaker(BASE)).toBeUndefined();
      const received = script('get', '/v1/items', [200]);
      expect((await http.get('/v1/items')).status).toBe(200);
      expect(received).toHaveLength(1);
    });
  });

  test('installing the same plugin again in each beforeEach is harmless: one retry loop, one onGiveUp', async () => {
    const http = axios.create({ baseURL: BASE });
    const giveUps: GiveUpEvent[] = [];
    const plugin = retryPlugin({ retries: 2, baseDelayMs: 1, breaker: false, onGiveUp: (e) => void giveUps.push(e) });
    plugin.install(http);
    plugin.install(http); // a second beforeEach run against a shared instance
    try {
      const received = script('get', '/v1/items', [503]);
      const error = await failure(http.get('/v1/items'));
      expect(received).toHaveLength(3);
      expect(error.config?.retryState).toMatchObject({ attempts: 3, stopReason: 'retries-exhausted' });
      expect(giveUps).toHaveLength(1);
    } finally {
      await plugin.close();
    }
  });

  test('a different plugin on an instance that has one throws a TypeError; after eject() it installs', async () => {
    const http = axios.create({ baseURL: BASE });
    const first = retryPlugin({ breaker: false });
    const second = retryPlugin({ breaker: false });
    const eject = first.install(http);
    try {
      expect(() => second.install(http)).toThrow(TypeError);
      eject();
      expect(() => second.install(http)).not.toThrow();
    } finally {
      await first.close();
      await second.close();
    }
  });
});
