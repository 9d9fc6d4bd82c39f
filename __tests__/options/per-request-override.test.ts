/** A per-request `retry` object overrides the plugin's options for that call only, and is validated. */
import type { AxiosError } from 'axios';
import { client, rejection } from '../support/helpers';
import { closeAll, script, useNock } from '../support/nock-helpers';

const API = 'http://api.test';

useNock();
afterEach(closeAll);

describe('per-request override', () => {
  test('retry: false leaves the call alone: one attempt, no key, no retryState', async () => {
    const seen = script(API, 'post', '/r', [503, 200]);
    const { http } = client();
    const error = (await rejection(http.post(`${API}/r`, {}, { retry: false }))) as unknown as AxiosError;
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
    expect(error.config?.retryState).toBeUndefined();
  });

  test('retry: { retries: 1 } overrides the plugin for that call only', async () => {
    const seen = script(API, 'get', '/r', [503]);
    const { http } = client({ retries: 4 });
    await rejection(http.get(`${API}/r`, { retry: { retries: 1 } }));
    expect(seen).toHaveLength(2);
    await rejection(http.get(`${API}/r`));
    expect(seen).toHaveLength(2 + 5);
  });

  test('invalid per-request options reject the call with a TypeError naming the field, nothing sent', async () => {
    const seen = script(API, 'get', '/r', [200]);
    const { http } = client();
    const error = await rejection(http.get(`${API}/r`, { retry: { retries: -1 } }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/config\.retry\.retries/);
    const jitter = await rejection(http.get(`${API}/r`, { retry: { jitter: 'wild' as never } }));
    expect(jitter.message).toMatch(/config\.retry\.jitter/);
    expect(seen).toHaveLength(0);
  });

  test('a per-request override cannot change the budget', async () => {
    const { http } = client();
    const error = await rejection(http.get(`${API}/r`, { retry: { budget: false } as never }));
    expect(error.message).toMatch(/config\.retry\.budget can be set only in retryPlugin\(\{ budget \}\)/);
  });
});
