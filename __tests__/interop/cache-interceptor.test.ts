/**
 * axios-cache-interceptor answers a cache hit by putting its own adapter on the request's config,
 * from its request interceptor. The plugin puts its attempt loop there too, from its own request
 * interceptor, and axios runs request interceptors in the reverse of the order they were added. So
 * the install order decides whether a hit passes through the plugin:
 *
 * - `setupCache()` first, then `plugin.install()`: the plugin's interceptor runs first, the
 *   cache's then replaces the adapter on a hit. A hit never reaches the plugin: no budget deposit,
 *   no breaker call, `retryState` `{ attempts: 0, delaysMs: [] }` (nothing was sent).
 * - `plugin.install()` first, then `setupCache()`: the cache's interceptor runs first and the
 *   plugin wraps the cache's adapter. A hit goes through the attempt loop: the budget counts it as
 *   a request, the breaker as a success, and `retryState` says one attempt although nothing left
 *   the process.
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

describe('what a cache hit costs, per install order', () => {
  test('cache first: a hit is not seen by the budget or the breaker, and retryState counts no attempt', async () => {
    const http = await setUp('cache first', ['503', '200']);
    await http.get('/v1/items');
    const budgetBefore = plugin.budget(server.url)!.state();
    const firesBefore = plugin.breaker(server.url)!.stats.fires;

    const hit = await http.get('/v1/items');

    expect(hit.cached).toBe(true);
    expect(plugin.budget(server.url)!.state().requests).toBe(budgetBefore.requests);
    expect(plugin.breaker(server.url)!.stats.fires).toBe(firesBefore);
    expect(hit.config.retryState).toMatchObject({ attempts: 0, delaysMs: [] });
  });

  test('plugin first: a hit is counted as a request by the budget and a success by the breaker, and as one attempt', async () => {
    const http = await setUp('plugin first', ['503', '200']);
    await http.get('/v1/items');
    const budgetBefore = plugin.budget(server.url)!.state();
    const statsBefore = { ...plugin.breaker(server.url)!.stats };

    const hit = await http.get('/v1/items');

    expect(hit.cached).toBe(true);
    expect(server.requestsTo('GET /v1/items')).toHaveLength(2);
    expect(plugin.budget(server.url)!.state().requests).toBe(budgetBefore.requests + 1);
    expect(plugin.breaker(server.url)!.stats).toMatchObject({
      fires: statsBefore.fires + 1,
      successes: statsBefore.successes + 1,
    });
    expect(hit.config.retryState).toMatchObject({ attempts: 1, delaysMs: [] });
  });
});
