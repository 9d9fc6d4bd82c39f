/**
 * Where the plugin sits: install() wraps the instance's default adapter and the last eject puts it
 * back; children made with create() and instances built from a copied adapter start without the
 * plugin; a per-request adapter is retried. Real node:http servers on 127.0.0.1.
 */
import axios, { AxiosError } from 'axios';
import { retryPlugin } from '../../lib';
import { rejection } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { serverPerTest } from '../support/test-server';

const ADAPTERS = ['http', 'fetch'] as const;

const t = serverPerTest();
const setup = setupOn(t, 'http');

describe('where the plugin sits: the instance’s default adapter', () => {
  test('install puts the plugin on the instance’s default adapter; the last eject puts the original back', () => {
    const http = axios.create();
    const original = http.defaults.adapter;
    const plugin = retryPlugin();
    t.plugins.push(plugin);
    const eject = plugin.install(http);
    expect(typeof http.defaults.adapter).toBe('function');
    expect(http.defaults.adapter).not.toBe(original);
    eject();
    expect(http.defaults.adapter).toBe(original);
  });

  test('a child made with create() after install starts without the plugin: one request, no key', async () => {
    t.handler = (_req, res) => res.writeHead(503).end();
    const { http } = setup();
    const child = http.create();
    const error = (await rejection(child.post(`${t.server.url}/pay`, { amount: 1 }))) as unknown as AxiosError;
    expect(error.response?.status).toBe(503);
    expect(t.server.requests).toHaveLength(1);
    expect(t.server.requests[0]!.headers['idempotency-key']).toBeUndefined();
    expect(error.config?.retryState).toBeUndefined();
  });

  test('installed on the axios default export, instances created afterwards start without it', async () => {
    t.handler = (_req, res) => res.writeHead(503).end();
    const plugin = retryPlugin({ random: () => 0, retries: 1, budget: false, breaker: false });
    t.plugins.push(plugin);
    const eject = plugin.install(axios);
    try {
      await rejection(axios.create().get(`${t.server.url}/child`));
      expect(t.server.requests).toHaveLength(1);
      await rejection(axios.get(`${t.server.url}/root`));
      expect(t.server.requests.map((r) => r.url)).toEqual(['/child', '/root', '/root']);
    } finally {
      eject();
    }
    expect(typeof axios.defaults.adapter).not.toBe('function');
  });

  test('an instance built from an installed one’s adapter passes its calls through untouched', async () => {
    t.handler = (_req, res) => res.writeHead(503).end();
    const { http } = setup();
    const copy = axios.create({ adapter: http.defaults.adapter! });
    await rejection(copy.get(`${t.server.url}/r`));
    expect(t.server.requests).toHaveLength(1);
  });

  test('a second plugin installed over a copied plugin adapter runs one retry loop, not two', async () => {
    t.handler = (_req, res) => res.writeHead(503).end();
    const { http } = setup({ retries: 2 });
    const copy = axios.create({ adapter: http.defaults.adapter! });
    const second = retryPlugin({ random: () => 0, retries: 2, budget: false, breaker: false });
    t.plugins.push(second);
    second.install(copy);
    const error = (await rejection(copy.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(t.server.requests).toHaveLength(3);
    expect(error.config?.retryState).toMatchObject({ attempts: 3, stopReason: 'retries-exhausted' });
  });

  test.each(ADAPTERS)('a per-request adapter (%s) is retried, and a re-sent error.config keeps it', async (adapter) => {
    t.handler = (_req, res) => res.writeHead(503).end();
    const { http } = setup({ retries: 1 });
    const error = (await rejection(http.get(`${t.server.url}/r`, { adapter }))) as unknown as AxiosError;
    expect(t.server.requests).toHaveLength(2);
    await rejection(http.request(error.config!));
    expect(t.server.requests).toHaveLength(4);
    // undici's fetch sends Sec-Fetch-Mode; axios's http adapter does not.
    const viaFetch = t.server.requests.map((r) => r.headers['sec-fetch-mode'] !== undefined);
    expect(viaFetch).toEqual(Array(4).fill(adapter === 'fetch'));
  });
});
