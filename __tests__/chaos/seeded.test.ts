/**
 * The rate and the seed: over 1,000 calls at rate 0.3 about 30 % of attempts get the fault, and two
 * plugins with the same seed inject on the same attempts (a chaos run can be replayed); another
 * seed chooses others. Through an adapter that answers at once, so 1,000 calls take milliseconds.
 */
import axios from 'axios';
import type { AxiosAdapter, AxiosResponse } from 'axios';
import { retryPlugin } from '../../lib';
import type { ChaosOptions, RetryPlugin } from '../../lib';

const plugins: RetryPlugin[] = [];
afterEach(async () => {
  while (plugins.length) await plugins.pop()!.close();
});

/** Runs `calls` GETs one after another; per call, what its retryState says (attempts, injected) and how many reached the adapter. */
async function run(chaos: ChaosOptions, calls: number, retries: number) {
  let sent = 0;
  const adapter: AxiosAdapter = (config) => {
    sent++;
    return Promise.resolve({ data: 'ok', status: 200, statusText: 'OK', headers: {}, config, request: {} });
  };
  const http = axios.create({ adapter });
  const plugin = retryPlugin({ retries, random: () => 0, budget: false, breaker: false, chaos });
  plugins.push(plugin);
  plugin.install(http);
  const outcomes: Array<[number, number, boolean]> = [];
  for (let i = 0; i < calls; i++) {
    const settled = await http.get<string>(`http://chaos.test/items/${i}`).then(
      (response: AxiosResponse) => response,
      (error: { config: AxiosResponse['config'] }) => error,
    );
    const state = settled.config.retryState!;
    outcomes.push([state.attempts, state.injected!, 'status' in settled && settled.status === 200]);
  }
  return { outcomes, sent };
}

const fault503 = { rate: 0.3, status: 503 } as const;

test('1,000 calls at rate 0.3: the injected share is 0.3 within sampling error, and nothing injected is sent', async () => {
  const { outcomes, sent } = await run({ seed: 42, faults: [fault503] }, 1000, 0);
  const injected = outcomes.reduce((sum, [, count]) => sum + count, 0);
  // Binomial(1000, 0.3): standard deviation 14.5, so ±50 is beyond 3.4 of them.
  expect(injected / 1000).toBeGreaterThanOrEqual(0.25);
  expect(injected / 1000).toBeLessThanOrEqual(0.35);
  expect(sent).toBe(1000 - injected);
  expect(outcomes.filter(([, , ok]) => ok)).toHaveLength(sent);
});

test('two plugins with the same seed inject on the same attempts; another seed on others', async () => {
  const first = await run({ seed: 7, faults: [fault503] }, 300, 3);
  const again = await run({ seed: 7, faults: [fault503] }, 300, 3);
  const other = await run({ seed: 8, faults: [fault503] }, 300, 3);
  expect(again.outcomes).toEqual(first.outcomes);
  expect(again.sent).toBe(first.sent);
  expect(other.outcomes).not.toEqual(first.outcomes);
  // Retries absorb the faults: every call ends in the adapter's 200 (a 0.3^4 streak is rare, not absent).
  const attempts = first.outcomes.reduce((sum, [count]) => sum + count, 0);
  const injected = first.outcomes.reduce((sum, [, count]) => sum + count, 0);
  expect(attempts - injected).toBe(first.sent);
  expect(injected / attempts).toBeGreaterThan(0.2);
  expect(injected / attempts).toBeLessThan(0.4);
});

test('the share holds per fault: two faults at 0.2 and 0.1 on one route', async () => {
  const faults = [
    { rate: 0.2, status: 503 },
    { rate: 0.1, error: 'ECONNRESET' },
  ] as const;
  const byFault = [0, 0];
  const adapter: AxiosAdapter = (config) =>
    Promise.resolve({ data: 'ok', status: 200, statusText: 'OK', headers: {}, config, request: {} });
  const http = axios.create({ adapter });
  const plugin = retryPlugin({ retries: 0, budget: false, breaker: false, chaos: { seed: 3, faults: [...faults] } });
  plugins.push(plugin);
  plugin.install(http);
  for (let i = 0; i < 1000; i++) {
    await http.get('http://chaos.test/x').catch((error: { injected?: { fault: number } }) => {
      byFault[error.injected!.fault]!++;
    });
  }
  // The second fault draws only for attempts the first spared: 0.1 of the 80 %.
  expect(byFault[0]! / 1000).toBeGreaterThan(0.16);
  expect(byFault[0]! / 1000).toBeLessThan(0.24);
  expect(byFault[1]! / 1000).toBeGreaterThan(0.05);
  expect(byFault[1]! / 1000).toBeLessThan(0.11);
});
