/**
 * axios-cache-interceptor answers a cache hit by putting its own adapter on the request's config,
 * from its request interceptor. axios runs request interceptors in the reverse of the order they
 * were added, so the install order would decide whether a hit passes through the plugin; the
 * plugin keeps its request interceptor the last registered (the first to run), so in both orders a
 * hit never reaches the plugin: no budget deposit, no breaker count, `retryState`
 * `{ attempts: 0, delaysMs: [] }` (nothing was sent). (With 0.3, installing the plugin first made
 * every hit count as a request, a success and one attempt.)
 *
 * In both orders a miss is retried inside the adapter, below both interceptors, so the cache sees
 * one response per call and stores the final one once.
 */
import axios from 'axios';
import type { AxiosInstance } from 'axios';
import { setupCache } from 'axios-cache-interceptor';
import type { AxiosCacheInstance } from 'axios-cache-interceptor';
import { retryPlugin } from '../../lib';
import type { RetryPlugin } from '../../lib';
import { startFaultServer } from '../../lib/testing';
import type { FaultServer, Step } from '../../lib/testing';

type Order = 'cache first' | 'plugin first';

let server: FaultServer;
let plugin: RetryPlugin;

afterEach(async () => {
  await plugin.close();
  await server.close();
});

async function setUp(order: Order, steps: Step[]): Promise<AxiosCacheInstance> {
  server = await startFaultServer({ routes: { 'GET /v1/items': steps } });
  plugin = retryPlugin({ baseDelayMs: 2, maxDelayMs: 10, random: () => 0.5, breaker: { volumeThreshold: 50 } });
  const instance: AxiosInstance = axios.create({ baseURL: server.url });
  if (order === 'cache first') {
    const cached = setupCache(instance);
    plugin.install(cached);
    return cached;
  }
  plugin.install(instance);
  return setupCache(instance);
}

describe.each<Order>(['cache first', 'plugin first'])('%s', (order) => {
  test('a miss retried after a 503 is stored once; the next call is a hit and sends nothing', async () => {
    const http = await setUp(order, ['503', '200']);
    const writes = jest.spyOn(http.storage, 'set');

    const miss = await http.get('/v1/items');
    expect(miss.status).toBe(200);
    expect(miss.cached).toBe(false);
    expect(miss.config.retryState).toMatchObject({ attempts: 2, delaysMs: [1] });
    expect(server.requestsTo('GET /v1/items')).toHaveLength(2);
    const stored = await http.storage.get(miss.id);
    expect(stored.state).toBe('cached');
    expect(stored.data?.status).toBe(200);
    expect(writes.mock.calls.filter(([, value]) => value.state === 'cached')).toHaveLength(1);

    const hit = await http.get('/v1/items');
    expect(hit.cached).toBe(true);
    expect(hit.status).toBe(200);
    expect(server.requestsTo('GET /v1/items')).toHaveLength(2);
  });

  test('a miss that runs out of retries stores nothing: the next call goes to the network', async () => {
    const http = await setUp(order, ['503', '503', '503', '200']);

    await expect(http.get('/v1/items', { retry: { retries: 2 } })).rejects.toMatchObject({
      response: { status: 503 },
      config: { retryState: { attempts: 3, stopReason: 'retries-exhausted' } },
    });
    const next = await http.get('/v1/items');
    expect(next.cached).toBe(false);
    expect(next.status).toBe(200);
    expect(server.requestsTo('GET /v1/items')).toHaveLength(4);
  });
});

describe.each<Order>(['cache first', 'plugin first'])('what a cache hit costs, %s', (order) => {
  test('a hit is not seen by the budget or the breaker, and retryState counts no attempt', async () => {
    const http = await setUp(order, ['503', '200']);
    await http.get('/v1/items');
    const budgetBefore = plugin.budget(server.url)!.state();
    const firesBefore = plugin.breaker(server.url)!.stats.fires;

    const hit = await http.get('/v1/items');

    expect(hit.cached).toBe(true);
    expect(server.requestsTo('GET /v1/items')).toHaveLength(2);
    expect(plugin.budget(server.url)!.state().requests).toBe(budgetBefore.requests);
    expect(plugin.breaker(server.url)!.stats.fires).toBe(firesBefore);
    expect(hit.config.retryState).toMatchObject({ attempts: 0, delaysMs: [] });
  });
});
