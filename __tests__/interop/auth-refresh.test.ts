/**
 * axios-auth-refresh catches a 401 in a response interceptor, runs the refresh, and re-sends the
 * failed request's config through the instance (`instance(error.config)`), so the re-send passes
 * through every interceptor again, the plugin's included, as a new logical call.
 *
 * axios runs response interceptors in the order they were added. The plugin keeps its give-up
 * reporter the last one, even when auth-refresh is added after it, so in both install orders
 * auth-refresh sees the 401 before the reporter does. Asserted for both orders: 401 → refresh →
 * re-send works, and a call gets exactly one `onGiveUp` if it finally fails, none if the refresh
 * saves it.
 */
import axios from 'axios';
import type { AxiosError, AxiosInstance } from 'axios';
import { createAuthRefresh } from 'axios-auth-refresh';
import { retryPlugin } from '../../lib';
import type { GiveUpEvent, RetryPlugin } from '../../lib';
import { startServer } from '../support/test-server';
import type { TestServer } from '../support/test-server';

type Order = 'auth-refresh first' | 'plugin first';

let server: TestServer;
let plugin: RetryPlugin;
let http: AxiosInstance;
let giveUps: GiveUpEvent[];
let refreshes: number;
let token: string;

/**
 * The API: `/v1/me` wants `Bearer fresh` (401 otherwise); `/v1/flaky` answers 503 to its first
 * request, then behaves as `/v1/me`; `/v1/locked` answers 401 whatever the token.
 */
async function setUp(order: Order): Promise<void> {
  server = await startServer((req, res, index) => {
    const authorised = req.headers.authorization === 'Bearer fresh';
    if (req.url === '/v1/flaky' && server.requests.findIndex((r) => r.url === '/v1/flaky') === index) {
      res.writeHead(503).end();
    } else if (req.url === '/v1/locked' || !authorised) {
      res.writeHead(401).end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'me' }));
    }
  });
  http = axios.create({ baseURL: server.url });
  token = 'stale';
  http.interceptors.request.use((config) => {
    config.headers.set('Authorization', `Bearer ${token}`);
    return config;
  });
  giveUps = [];
  refreshes = 0;
  plugin = retryPlugin({ baseDelayMs: 2, maxDelayMs: 10, random: () => 0.5, onGiveUp: (e) => void giveUps.push(e) });
  const refresh = async (failed: AxiosError): Promise<void> => {
    refreshes++;
    token = 'fresh';
    failed.response!.config.headers.set('Authorization', `Bearer ${token}`);
  };
  if (order === 'auth-refresh first') {
    createAuthRefresh(http, refresh);
    plugin.install(http);
  } else {
    plugin.install(http);
    createAuthRefresh(http, refresh);
  }
}

afterEach(async () => {
  await plugin.close();
  await server.close();
});

const authorizations = () => server.requests.map((r) => r.headers.authorization);

describe.each<Order>(['auth-refresh first', 'plugin first'])('%s', (order) => {
  test('401 → refresh → re-send resolves, and no onGiveUp is reported for the saved call', async () => {
    await setUp(order);

    const response = await http.get('/v1/me');

    expect(response.status).toBe(200);
    expect(response.data).toEqual({ id: 'me' });
    expect(refreshes).toBe(1);
    expect(authorizations()).toEqual(['Bearer stale', 'Bearer fresh']);
    expect(response.config.retryState).toMatchObject({ attempts: 1 });
    expect(giveUps).toEqual([]);
  });

  test('a POST re-sent after the refresh carries the same Idempotency-Key', async () => {
    await setUp(order);

    const response = await http.post('/v1/me', { name: 'x' });

    expect(response.status).toBe(200);
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(giveUps).toEqual([]);
  });

  test('a 503 is retried by the plugin, then the 401 is refreshed, and the call resolves', async () => {
    await setUp(order);

    const response = await http.get('/v1/flaky');

    expect(response.status).toBe(200);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/flaky', '/v1/flaky', '/v1/flaky']);
    expect(authorizations()).toEqual(['Bearer stale', 'Bearer stale', 'Bearer fresh']);
    expect(refreshes).toBe(1);
    expect(giveUps).toEqual([]);
  });

  test('a 401 the refresh cannot fix fails with the second 401 and exactly one onGiveUp', async () => {
    await setUp(order);

    const error = (await http.get('/v1/locked').catch((e: unknown) => e)) as AxiosError;

    expect(error.response?.status).toBe(401);
    expect(refreshes).toBe(1);
    expect(server.requests).toHaveLength(2);
    expect(error.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'not-retryable' });
    // One: the re-send's 401. The first 401 was auth-refresh's to handle.
    expect(giveUps).toHaveLength(1);
    expect(giveUps[0]).toMatchObject({ stopReason: 'not-retryable', error });
  });
});
