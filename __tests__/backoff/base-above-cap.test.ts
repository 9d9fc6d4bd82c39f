/**
 * A base above the cap (retry-axios's `retryDelay: 10000, maxRetryDelay: 5000`, mapped as the
 * migration guide says): `min(maxDelayMs, base × 2^n)` is well defined there, so the plugin takes
 * it and caps every wait at `maxDelayMs`, before jitter, as for any other base. Fake timers, a
 * scripted adapter below axios, an injected random source.
 */
import type { JitterStrategy } from '../../lib';
import { client, closePlugins, fake, scriptedAdapter } from '../support/helpers';

afterEach(async () => {
  jest.useRealTimers();
  await closePlugins();
});

test.each<[JitterStrategy, number[]]>([
  ['none', [5000, 5000, 5000]],
  ['full', [2500, 2500, 2500]],
  ['equal', [3750, 3750, 3750]],
  ['decorrelated', [5000, 5000, 5000]],
])('baseDelayMs 10000 under maxDelayMs 5000, jitter %s: every wait capped at 5000', async (jitter, waits) => {
  fake();
  const net = scriptedAdapter([503, 503, 503, 200]);
  const { http } = client({ baseDelayMs: 10_000, maxDelayMs: 5000, jitter, retries: 3, random: () => 0.5 });
  const call = http.get('http://api.test/r', { adapter: net.adapter });
  for (let i = 0; i < 3; i++) await jest.advanceTimersByTimeAsync(5000);
  const response = await call;
  expect(response.status).toBe(200);
  expect(net.attempts).toHaveLength(4);
  expect(response.config.retryState?.delaysMs).toEqual(waits);
});

test('per request too: a base above the plugin’s cap is taken, the wait capped', async () => {
  fake();
  const net = scriptedAdapter([503, 200]);
  const { http } = client({ maxDelayMs: 1000, jitter: 'none' });
  const call = http.get('http://api.test/r', { adapter: net.adapter, retry: { baseDelayMs: 4000 } });
  await jest.advanceTimersByTimeAsync(1000);
  expect((await call).config.retryState?.delaysMs).toEqual([1000]);
});
