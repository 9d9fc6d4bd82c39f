/**
 * The breakers' rolling windows keep turning whichever timers run: a plugin made once (at module
 * scope) and used by several tests, each with its own fake clock, and a registry closed while a call
 * still runs. The shared interval used to be made once, under the clock of the first call; when that
 * test's fake clock was uninstalled it never fired again, so failures from that test stayed in every
 * later window, and a lookup after close() made an interval nothing would clear.
 */
import axios from 'axios';
import nock from 'nock';
import { retryPlugin } from '../../lib';
import { BreakerRegistry } from '../../lib/guards/breaker';
import { resolvePluginOptions } from '../../lib/policy/options';
import { nockRoute, settle } from '../../lib/testing';
import { useNock } from '../support/nock-helpers';

useNock();

const API = 'http://api.test';

describe('a plugin made once and used by tests with their own fake clocks', () => {
  const plugin = retryPlugin({ retries: 0 });
  const http = axios.create({ baseURL: API });
  plugin.install(http);
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.useRealTimers();
    nock.cleanAll();
  });
  afterAll(() => plugin.close());

  test('the first test: a failed call is counted in the window', async () => {
    nockRoute(nock(API), 'GET /v1/items', ['503']);
    await expect(settle(http.get('/v1/items'), jest)).rejects.toMatchObject({ response: { status: 503 } });
    expect(plugin.breaker(API)!.stats).toMatchObject({ fires: 1, failures: 1 });
  });

  test('the next test, on a new clock: 10 s later that failure has left the window', async () => {
    nockRoute(nock(API), 'GET /v1/items', ['200']);
    await settle(http.get('/v1/items'), jest);
    expect(plugin.breaker(API)!.stats).toMatchObject({ fires: 2, failures: 1, successes: 1 });
    // The window is 10 s of 1 s buckets: turned by the timers of this test's clock.
    await jest.advanceTimersByTimeAsync(10_000);
    expect(plugin.breaker(API)!.stats).toMatchObject({ fires: 0, failures: 0, successes: 0 });
  });
});

test('a closed registry makes no interval for a key a call still running looks up', async () => {
  jest.useFakeTimers();
  const { breaker } = resolvePluginOptions({});
  if (breaker === false) throw new Error('the default plugin has a breaker');
  const registry = new BreakerRegistry(breaker, undefined, Math.random);
  registry.for('http://a.test');
  expect(jest.getTimerCount()).toBe(1);
  await registry.close();
  expect(jest.getTimerCount()).toBe(0);
  registry.for('http://b.test');
  expect(jest.getTimerCount()).toBe(0);
  jest.useRealTimers();
});
