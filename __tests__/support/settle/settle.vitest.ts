/**
 * `settle()` under vitest's fake timers (run by testing/settle-vitest.test.ts): `vi.useFakeTimers()`
 * with its defaults, nock answering 503, then 429 with `Retry-After: 30`, then 200, in both orders
 * with a fake-timer test over a real socket whose plugin is closed after it.
 */
import * as timers from 'node:timers';
import axios from 'axios';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { retryPlugin } from '../../../lib';
import type { RetryPluginOptions } from '../../../lib';
import { gapsMs, nockRoute, settle, startFaultServer } from '../../../lib/testing';
import type { FaultServer } from '../../../lib/testing';

const API = 'http://api.test';
// nock answers api.test; the fault server is a real socket on loopback; nothing else goes out.
beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterAll(() => {
  nock.enableNetConnect();
  nock.restore();
});
const plugins: Array<{ close(): Promise<void> }> = [];
const servers: FaultServer[] = [];
beforeEach(() => void vi.useFakeTimers());
afterEach(async () => {
  vi.useRealTimers();
  while (plugins.length) await plugins.pop()!.close();
  while (servers.length) await servers.pop()!.close();
  nock.cleanAll();
});

function client(baseURL: string, options: RetryPluginOptions = {}) {
  const plugin = retryPlugin(options);
  plugins.push(plugin);
  const http = axios.create({ baseURL });
  plugin.install(http);
  return http;
}

const isFake = (fn: unknown): boolean => typeof (fn as { clock?: unknown }).clock === 'object';

async function throttledThenAnswered(): Promise<void> {
  const route = nockRoute(nock(API), 'GET /v1/items', [
    '503',
    { status: 429, headers: { 'Retry-After': '30' } },
    { body: { ok: true } },
  ]);
  const http = client(API, { random: () => 0.5 });

  const response = await settle(http.get('/v1/items'), vi);

  expect(response.status).toBe(200);
  expect(response.data).toEqual({ ok: true });
  expect(response.config.retryState?.delaysMs).toEqual([250, 30_000]);
  expect(route.requests).toHaveLength(3);
  expect(gapsMs(route.requests)).toEqual([250, 30_000]);
}

async function hangThenAnswered(): Promise<void> {
  const server = await startFaultServer({ routes: { 'GET /v1/slow': [{ delayMs: 15_000 }, '200'] } });
  servers.push(server);
  const http = client(server.url, { baseDelayMs: 100, random: () => 0.5 });

  const response = await settle(http.get('/v1/slow', { timeout: 1000 }), vi);

  expect(response.status).toBe(200);
  expect(response.config.retryState).toMatchObject({ attempts: 2, delaysMs: [50] });
  expect(gapsMs(server.requestsTo('GET /v1/slow'))).toEqual([1050]);
}

describe('a closed plugin’s fake-timer test first, then the nock test', () => {
  test('a 15 s hang against a 1 s timeout, over a real socket', hangThenAnswered);
  test('nock 503, 429 Retry-After: 30, 200', throttledThenAnswered);
});

describe('the nock test first, then a closed plugin’s fake-timer test', () => {
  test('nock 503, 429 Retry-After: 30, 200', throttledThenAnswered);
  test('a 15 s hang against a 1 s timeout, over a real socket', hangThenAnswered);
});

test('vitest 3 fakes the global timers and setImmediate, not nextTick, and not the exports of node:timers', () => {
  expect([setTimeout, setImmediate, setInterval, Date].map(isFake)).toEqual([true, true, true, true]);
  expect(isFake(process.nextTick)).toBe(false);
  expect([timers.setTimeout, timers.setImmediate].map(isFake)).toEqual([false, false]);
});
