import axios from 'axios';
import nock from 'nock';
import { retryPlugin } from '../../lib';
import type { CircuitStateChange } from '../../lib';
import { fake, realTick, rejection, scriptedAdapter } from '../support/helpers';
import { script, useNock } from '../support/nock-helpers';

// An origin's opossum breaker is made on its first failed call and its budget on its first retry
// (docs/performance.md, "Many origins"). What they count before that must still count: these pin that they do.

const A = 'http://a.test';

useNock();
afterEach(() => nock.cleanAll());

test("successes before an origin's first failure dilute its failure rate: 9 successes, then it opens at the 10th failure", async () => {
  const seen = script(A, 'get', '/r', [200, 200, 200, 200, 200, 200, 200, 200, 200, 503]);
  const changes: CircuitStateChange[] = [];
  const plugin = retryPlugin({
    retries: 0,
    budget: false,
    breaker: { volumeThreshold: 5, resetTimeout: 30_000 },
    onCircuitStateChange: (change) => void changes.push(change),
  });
  const client = axios.create();
  plugin.install(client);
  for (let i = 0; i < 9; i++) await client.get(`${A}/r`);
  // opossum opens above 50 %: 9 failures of 18 calls is not above it, 10 of 19 is.
  for (let i = 0; i < 9; i++) await rejection(client.get(`${A}/r`));
  // A call's failure reaches opossum a tick after the caller has it.
  await realTick();
  expect(changes).toEqual([]);
  await rejection(client.get(`${A}/r`));
  await realTick();
  expect(changes).toEqual([{ origin: 'http://a.test:80', state: 'open' }]);
  expect(seen).toHaveLength(19);
  expect(plugin.breaker(A)!.stats).toMatchObject({ fires: 19, failures: 10, successes: 9 });
  await plugin.close();
});

test('an origin that has only succeeded shows a closed breaker holding its calls; one never called shows none', async () => {
  script(A, 'get', '/r', [200]);
  const plugin = retryPlugin();
  const client = axios.create();
  plugin.install(client);
  for (let i = 0; i < 3; i++) await client.get(`${A}/r`);
  const breaker = plugin.breaker(A)!;
  expect(breaker.closed).toBe(true);
  expect(breaker.stats).toMatchObject({ fires: 3, successes: 3, failures: 0 });
  // Made now, it counts the next calls as any breaker does.
  await client.get(`${A}/r`);
  expect(breaker.stats).toMatchObject({ fires: 4, successes: 4 });
  expect(plugin.breaker('http://never.test')).toBeUndefined();
  expect(plugin.budget('http://never.test')).toBeUndefined();
  await plugin.close();
});

test("first attempts before an origin's first retry count toward its ratio: 10 successes earn a failing call 5 retries", async () => {
  const seen = script(A, 'get', '/r', [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 503]);
  const plugin = retryPlugin({
    retries: 10,
    random: () => 0,
    breaker: false,
    budget: { ratio: 0.5, minPerSecond: 0, windowMs: 10_000 },
  });
  const client = axios.create();
  plugin.install(client);
  for (let i = 0; i < 10; i++) await client.get(`${A}/r`);
  const error = await rejection(client.get(`${A}/r`));
  // 11 first attempts × 0.5 = 5.5: five retries, the sixth refused.
  expect(error.config).toMatchObject({ retryState: { attempts: 6, stopReason: 'budget-exhausted' } });
  expect(seen).toHaveLength(16);
  expect(plugin.budget(A)!.state()).toMatchObject({ requests: 11, retries: 5, granted: 5, refused: 1 });
  await plugin.close();
});

test("an origin's budget read before any retry reports its first attempts", async () => {
  script(A, 'get', '/r', [200]);
  const plugin = retryPlugin();
  const client = axios.create();
  plugin.install(client);
  for (let i = 0; i < 4; i++) await client.get(`${A}/r`);
  expect(plugin.budget(A)!.state()).toMatchObject({ requests: 4, retries: 0, granted: 0, refused: 0 });
  await plugin.close();
});

describe('successes counted before the breaker exists keep their place in the rolling window', () => {
  afterEach(() => jest.useRealTimers());

  /** 9 successes, `later` ms of fake time, then failed calls until the breaker opens; how many it took. */
  async function failuresToOpen(later: number): Promise<number> {
    fake();
    const ok = scriptedAdapter([200]);
    const down = scriptedAdapter([503]);
    let opened = false;
    const plugin = retryPlugin({
      retries: 0,
      budget: false,
      breaker: { volumeThreshold: 5, rollingCountTimeout: 10_000, rollingCountBuckets: 10 },
      onCircuitStateChange: ({ state }) => void (opened ||= state === 'open'),
    });
    const client = axios.create();
    plugin.install(client);
    for (let i = 0; i < 9; i++) await client.get(`${A}/r`, { adapter: ok.adapter });
    await jest.advanceTimersByTimeAsync(later);
    let failures = 0;
    while (!opened && failures < 20) {
      failures++;
      await rejection(client.get(`${A}/r`, { adapter: down.adapter }));
      await realTick();
    }
    await plugin.close();
    return failures;
  }

  test('9.5 s later (9 turns of a 10 s window) they still count: it opens at the 10th failure', async () => {
    expect(await failuresToOpen(9_500)).toBe(10);
  });

  test('10.5 s later they have left the window: it opens at the 5th failure (the volume threshold)', async () => {
    expect(await failuresToOpen(10_500)).toBe(5);
  });
});
