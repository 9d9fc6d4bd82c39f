/**
 * install() registers one request and one response interceptor and eject() removes them; one
 * plugin may serve two instances; the give-up reporter hears every final failure once.
 */
import axios from 'axios';
import type { AxiosError } from 'axios';
import { retryPlugin } from '../../lib';
import { client, rejection } from '../support/helpers';
import { closeAll, script, useNock } from '../support/nock-helpers';

const API = 'http://api.test';

useNock();
afterEach(closeAll);

describe('install and eject', () => {
  test('install registers one request and one response interceptor; eject removes both', async () => {
    const http = axios.create();
    const handlers = (manager: unknown) => (manager as { handlers: unknown[] }).handlers.filter(Boolean).length;
    const plugin = retryPlugin({ breaker: false, budget: false, random: () => 0 });
    const eject = plugin.install(http);
    expect(handlers(http.interceptors.request)).toBe(1);
    expect(handlers(http.interceptors.response)).toBe(1);
    const seen = script(API, 'get', '/r', [503, 200]);
    eject();
    expect(handlers(http.interceptors.request)).toBe(0);
    expect(handlers(http.interceptors.response)).toBe(0);
    await rejection(http.get(`${API}/r`));
    expect(seen).toHaveLength(1);
    await plugin.close();
  });

  test('install refuses something that is not an axios instance', () => {
    const plugin = retryPlugin();
    expect(() => plugin.install({} as never)).toThrow(/install\(\) needs axios or an axios.create\(\) instance/);
  });

  test('one plugin on two instances shares its budget', async () => {
    script(API, 'get', '/r', [503]);
    const plugin = retryPlugin({
      budget: { ratio: 0, minPerSecond: 0.3, windowMs: 10000 },
      breaker: false,
      random: () => 0,
    });
    const a = axios.create();
    const b = axios.create();
    plugin.install(a);
    plugin.install(b);
    // Floor: 0.3/s × 10 s = 3 retries for the origin, whoever asks.
    const ea = (await rejection(a.get(`${API}/r`))) as unknown as AxiosError;
    const eb = (await rejection(b.get(`${API}/r`))) as unknown as AxiosError;
    expect(ea.config?.retryState?.attempts).toBe(4);
    expect(eb.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'budget-exhausted' });
    await plugin.close();
  });

  test('onGiveUp hears every final failure once, with the stop reason', async () => {
    script(API, 'get', '/gone', [404]);
    script(API, 'get', '/down', [503]);
    const reasons: string[] = [];
    const { http } = client({ retries: 1, onGiveUp: ({ stopReason }) => void reasons.push(stopReason) });
    await rejection(http.get(`${API}/gone`));
    await rejection(http.get(`${API}/down`));
    expect(reasons).toEqual(['not-retryable', 'retries-exhausted']);
  });
});
