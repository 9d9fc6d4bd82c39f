/**
 * Installing twice and installing next to other interceptors: the same plugin twice is one retry
 * loop, the give-up reporter runs after response interceptors added later, and a different plugin
 * on the same instance is refused. Real node:http servers on 127.0.0.1.
 */
import axios, { AxiosError } from 'axios';
import { retryPlugin } from '../../lib';
import type { GiveUpEvent } from '../../lib';
import { rejection } from '../support/helpers';
import { serverPerTest } from '../support/test-server';

const t = serverPerTest();

describe('installs', () => {
  test('the same plugin installed twice: one retry loop, one onGiveUp per failed call', async () => {
    t.handler = (_req, res) => res.writeHead(503).end('busy');
    const gaveUp: GiveUpEvent[] = [];
    const plugin = retryPlugin({
      retries: 2,
      random: () => 0,
      budget: false,
      breaker: false,
      onGiveUp: (e) => void gaveUp.push(e),
    });
    t.plugins.push(plugin);
    const http = axios.create();
    const eject1 = plugin.install(http);
    const eject2 = plugin.install(http);
    const error = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(t.server.requests).toHaveLength(3);
    expect(gaveUp).toHaveLength(1);
    expect(error.config?.retryState).toMatchObject({ attempts: 3, stopReason: 'retries-exhausted' });
    // The interceptors stay until the last eject.
    eject1();
    await rejection(http.get(`${t.server.url}/r`));
    expect(t.server.requests).toHaveLength(6);
    eject2();
    await rejection(http.get(`${t.server.url}/r`));
    expect(t.server.requests).toHaveLength(7);
  });

  test('onGiveUp runs after response interceptors added later (one that saves the call is not reported); eject restores use', async () => {
    t.handler = (req, res) => res.writeHead(req.headers.authorization === 'fresh' ? 200 : 401).end();
    const gaveUp: GiveUpEvent[] = [];
    const http = axios.create();
    const plugin = retryPlugin({ budget: false, breaker: false, onGiveUp: (e) => void gaveUp.push(e) });
    t.plugins.push(plugin);
    const eject = plugin.install(http);
    // Added after the plugin, like axios-auth-refresh: re-sends a 401 with a fresh token.
    http.interceptors.response.use(undefined, (error: AxiosError) => {
      if (error.response?.status !== 401 || error.config!.headers.Authorization === 'fresh') throw error;
      error.config!.headers.Authorization = 'fresh';
      return http.request(error.config!);
    });
    expect((await http.get(`${t.server.url}/me`)).status).toBe(200);
    expect(gaveUp).toEqual([]);
    eject();
    expect(Object.prototype.hasOwnProperty.call(http.interceptors.response, 'use')).toBe(false);
  });

  test('a different plugin on an instance that has one throws a TypeError saying so', () => {
    const http = axios.create();
    const first = retryPlugin();
    const second = retryPlugin();
    t.plugins.push(first, second);
    const eject = first.install(http);
    expect(() => second.install(http)).toThrow(TypeError);
    expect(() => second.install(http)).toThrow(/already has a different retry plugin installed/);
    eject();
    expect(() => second.install(http)).not.toThrow();
  });
});

describe('request interceptors added after the plugin', () => {
  const busy = (): void => {
    t.handler = (_req, res, index) => res.writeHead(index === 0 ? 503 : 200).end(index === 0 ? 'busy' : 'ok');
  };
  const make = () => {
    const plugin = retryPlugin({ random: () => 0, budget: false, breaker: false });
    t.plugins.push(plugin);
    const http = axios.create();
    const eject = plugin.install(http);
    return { http, eject };
  };

  test('run after the plugin’s, which has begun the call (as when they were added first)', async () => {
    busy();
    const { http } = make();
    const seen: unknown[] = [];
    http.interceptors.request.use((config) => {
      seen.push({ ...config.retryState, delaysMs: [...(config.retryState?.delaysMs ?? [])] });
      return config;
    });
    await http.get(`${t.server.url}/r`);
    expect(seen).toEqual([{ attempts: 0, delaysMs: [] }]);
  });

  test('one that sets config.retry changes the call: its options are read when the call reaches the adapter', async () => {
    t.handler = (_req, res) => res.writeHead(503).end('busy');
    const { http } = make();
    http.interceptors.request.use((config) => {
      config.retry = { retries: 1 };
      return config;
    });
    const error = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(t.server.requests).toHaveLength(2);
    expect(error.config?.retryState).toMatchObject({ attempts: 2, stopReason: 'retries-exhausted' });
  });

  test('one that sets retry: false takes the call out of the plugin’s hands: one request, no retryState', async () => {
    busy();
    const { http } = make();
    http.interceptors.request.use((config) => {
      config.retry = false;
      return config;
    });
    const error = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(t.server.requests).toHaveLength(1);
    expect(error.config?.retryState).toBeUndefined();
  });

  test('one that sets a bad config.retry fails the call with a TypeError naming the field, nothing sent', async () => {
    busy();
    const { http } = make();
    http.interceptors.request.use((config) => {
      config.retry = { retries: -1 };
      return config;
    });
    const error = await rejection(http.get(`${t.server.url}/r`));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/config\.retry\.retries must be a whole number >= 0/);
    expect(t.server.requests).toHaveLength(0);
  });

  test('eject removes only the plugin’s: an interceptor added after it keeps running, and use is axios’s again', async () => {
    busy();
    const { http, eject } = make();
    let ran = 0;
    http.interceptors.request.use((config) => {
      ran++;
      return config;
    });
    eject();
    expect(Object.hasOwn(http.interceptors.request, 'use')).toBe(false);
    await rejection(http.get(`${t.server.url}/r`));
    expect(ran).toBe(1);
    expect(t.server.requests).toHaveLength(1);
  });
});
