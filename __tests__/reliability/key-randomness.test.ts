/**
 * Idempotency keys come from a cryptographic source: uuid v4 from node:crypto, never Math.random.
 * node:crypto is wrapped (not replaced) so the test can count where the randomness came from.
 */
import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import axios from 'axios';
import { retryPlugin } from '../../lib';

jest.mock('crypto', () => {
  const actual = jest.requireActual<typeof import('crypto')>('crypto');
  return {
    ...actual,
    randomUUID: jest.fn(actual.randomUUID),
    randomFillSync: jest.fn(actual.randomFillSync),
    getRandomValues: jest.fn(actual.getRandomValues),
  };
});

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('1,000 POSTs get 1,000 distinct uuid v4 keys drawn from node:crypto, and Math.random is never called', async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const crypto = require('crypto') as Record<'randomUUID' | 'randomFillSync' | 'getRandomValues', jest.Mock>;
  const sent: InternalAxiosRequestConfig[] = [];
  const adapter: AxiosAdapter = (config) => {
    sent.push(config);
    return Promise.resolve({ data: {}, status: 201, statusText: 'Created', headers: {}, config } as AxiosResponse);
  };
  const client = axios.create({ adapter });
  const plugin = retryPlugin();
  plugin.install(client);
  const mathRandom = jest.spyOn(Math, 'random');
  // Web Crypto's randomUUID where there is one (Node 20 has it), else uuid over node:crypto.
  const webUUID = jest.spyOn(globalThis.crypto, 'randomUUID');
  const cryptoCalls = () =>
    webUUID.mock.calls.length +
    crypto.randomUUID.mock.calls.length +
    crypto.randomFillSync.mock.calls.length +
    crypto.getRandomValues.mock.calls.length;
  const cryptoBefore = cryptoCalls();
  let drawn = 0;
  try {
    for (let i = 0; i < 1000; i++) await client.post('http://api.test/pay', { i });
    expect(mathRandom).not.toHaveBeenCalled();
    // Counted before the spies are restored (restoring clears their calls).
    drawn = cryptoCalls() - cryptoBefore;
  } finally {
    mathRandom.mockRestore();
    webUUID.mockRestore();
    await plugin.close();
  }
  const keys = sent.map((config) => String(config.headers.get('Idempotency-Key')));
  expect(keys.filter((k) => !UUID_V4.test(k))).toEqual([]);
  expect(new Set(keys).size).toBe(1000);
  // One randomUUID call per key, or uuid's pooled randomFillSync (16 keys per fill).
  expect(drawn).toBeGreaterThanOrEqual(Math.ceil(1000 / 16));
});
