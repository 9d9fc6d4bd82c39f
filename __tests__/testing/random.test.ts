import { seededRandom } from '../../lib/testing';
import { retryPlugin } from '../../lib';
import axios from 'axios';
import { scriptedAdapter } from '../support/helpers';

test('seededRandom: the same seed gives the same sequence, always in [0, 1)', () => {
  const a = seededRandom(42);
  const b = seededRandom(42);
  const c = seededRandom(43);
  const first = Array.from({ length: 1000 }, a);
  expect(Array.from({ length: 1000 }, b)).toEqual(first);
  expect(Array.from({ length: 1000 }, c)).not.toEqual(first);
  expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
});

test('as the plugin random source it makes the chosen waits reproducible', async () => {
  const run = async () => {
    const net = scriptedAdapter([503, 503, 503, 200]);
    const plugin = retryPlugin({
      random: seededRandom(7),
      baseDelayMs: 4,
      maxDelayMs: 40,
      budget: false,
      breaker: false,
    });
    const client = axios.create({ adapter: net.adapter });
    plugin.install(client);
    const response = await client.get('http://api.test/r');
    await plugin.close();
    return response.config.retryState?.delaysMs;
  };
  const first = await run();
  expect(first).toHaveLength(3);
  expect(await run()).toEqual(first);
});
