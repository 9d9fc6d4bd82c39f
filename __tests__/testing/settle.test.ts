/**
 * `settle()` from axios-resilience/testing: a call run to its end under fake timers, with the
 * pattern users write first — `jest.useFakeTimers()` in its default configuration (everything faked,
 * `nextTick` and `setImmediate` included), nock answering 503, then 429 with `Retry-After: 30`, then
 * 200 — in several tests of one file, in both orders, next to tests whose plugins were closed; and
 * the same under @sinonjs/fake-timers installed directly. vitest: testing/settle-vitest.test.ts.
 */
import * as timers from 'node:timers';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import FakeTimers from '@sinonjs/fake-timers';
import axios from 'axios';
import nock from 'nock';
import { retryPlugin } from '../../lib';
import type { RetryPluginOptions } from '../../lib';
import { gapsMs, nockRoute, settle, startFaultServer } from '../../lib/testing';
import type { FakeClockLike, FaultServer } from '../../lib/testing';
import { useNock } from '../support/nock-helpers';

useNock();
// nock answers api.test; the fault server and the silent server below are real sockets on loopback.
beforeAll(() => nock.enableNetConnect('127.0.0.1'));

const API = 'http://api.test';
const plugins: Array<{ close(): Promise<void> }> = [];
const servers: FaultServer[] = [];
afterEach(async () => {
  jest.useRealTimers();
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

/** The user's test: 503, then 429 with Retry-After: 30, then 200, all from nock. */
async function throttledThenAnswered(clock: FakeClockLike): Promise<void> {
  const route = nockRoute(nock(API), 'GET /v1/items', [
    '503',
    { status: 429, headers: { 'Retry-After': '30' } },
    { body: { ok: true } },
  ]);
  const http = client(API, { random: () => 0.5 });

  const response = await settle(http.get('/v1/items'), clock);

  expect(response.status).toBe(200);
  expect(response.data).toEqual({ ok: true });
  // Half of the first backoff ceiling (random 0.5 of 500 ms), then the server's 30 s.
  expect(response.config.retryState?.delaysMs).toEqual([250, 30_000]);
  // nock got three requests, each at the fake time the plugin chose: the clock never moved while one was on its way.
  expect(route.requests.map((r) => r.path)).toEqual(['/v1/items', '/v1/items', '/v1/items']);
  expect(gapsMs(route.requests)).toEqual([250, 30_000]);
}

/**
 * A fake-timer test with a real socket whose plugin is closed after it: the seed's 15 s hang
 * against a 1 s timeout, on a server in this process whose delay is a fake timer too.
 */
async function hangThenAnswered(clock: FakeClockLike): Promise<void> {
  const server = await startFaultServer({ routes: { 'GET /v1/slow': [{ delayMs: 15_000 }, '200'] } });
  servers.push(server);
  const http = client(server.url, { baseDelayMs: 100, random: () => 0.5 });

  const response = await settle(http.get('/v1/slow', { timeout: 1000 }), clock);

  expect(response.status).toBe(200);
  expect(response.config.retryState).toMatchObject({ attempts: 2, delaysMs: [50] });
  // The first request was cut off at 1 s; the retry left 50 ms later.
  expect(gapsMs(server.requestsTo('GET /v1/slow'))).toEqual([1050]);
}

describe('jest.useFakeTimers() with its defaults: a closed plugin’s test first, then the nock test', () => {
  beforeEach(() => jest.useFakeTimers());

  test('a 15 s hang against a 1 s timeout, over a real socket; its plugin is closed after it', () =>
    hangThenAnswered(jest));

  test('nock 503, 429 Retry-After: 30, 200: three requests, waits of 250 ms and 30 s, the 200', () =>
    throttledThenAnswered(jest));

  test('the same again, after a test whose plugin was closed', () => throttledThenAnswered(jest));
});

describe('jest.useFakeTimers() with its defaults: the nock test first, then a closed plugin’s test', () => {
  beforeEach(() => jest.useFakeTimers());

  test('nock 503, 429 Retry-After: 30, 200: three requests, waits of 250 ms and 30 s, the 200', () =>
    throttledThenAnswered(jest));

  test('a 15 s hang against a 1 s timeout, over a real socket; its plugin is closed after it', () =>
    hangThenAnswered(jest));
});

describe('@sinonjs/fake-timers installed directly, everything faked', () => {
  let clock: ReturnType<typeof FakeTimers.install>;
  beforeEach(() => {
    clock = FakeTimers.install();
  });
  afterEach(() => clock.uninstall());

  test('it fakes node:timers too, where jest’s fake timers do not; settle() still yields to the real event loop', async () => {
    expect(isFake(timers.setImmediate)).toBe(true);
    expect(isFake(process.nextTick)).toBe(true);
    const route = nockRoute(nock(API), 'GET /v1/items', ['200']);
    expect((await settle(client(API).get('/v1/items'), clock)).status).toBe(200);
    expect(route.requests).toHaveLength(1);
  });

  test('nock 503, 429 Retry-After: 30, 200: three requests, waits of 250 ms and 30 s, the 200', () =>
    throttledThenAnswered(clock));

  test('a 15 s hang against a 1 s timeout, over a real socket', () => hangThenAnswered(clock));
});

describe('what jest’s fake timers replace', () => {
  test('the globals, nextTick and setImmediate included; not the exports of node:timers', () => {
    jest.useFakeTimers();
    expect([setTimeout, setImmediate, setInterval, process.nextTick, queueMicrotask].map(isFake)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect([timers.setTimeout, timers.setImmediate].map(isFake)).toEqual([false, false]);
  });
});

describe('a call that never settles', () => {
  let silent: Server | undefined;
  const sockets = new Set<Socket>();
  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => (silent ? silent.close(resolve) : resolve(undefined)));
    silent = undefined;
  });

  test('a server that never answers: settle() gives up at maxFakeMs and names the request still waiting', async () => {
    // A TCP server that takes the request and says nothing: an answer could only come in real time.
    silent = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent!.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    jest.useFakeTimers();
    const http = client(`http://127.0.0.1:${port}`);

    const outcome = settle(http.get('/v1/items'), jest, { maxFakeMs: 3000, ioGraceMs: 20 });

    await expect(outcome).rejects.toThrow(
      new RegExp(
        `settle\\(\\): the promise is still pending; gave up after 3000 ms of fake time and 3 advances of the clock ` +
          `\\(maxFakeMs 3000, maxAdvances 10000\\)\\. Pending: 1 fake timer; requests waiting for an answer: ` +
          `GET http://127\\.0\\.0\\.1:${port}/v1/items$`,
      ),
    );
  });

  test('a promise nothing pending can settle: settle() says so at once', async () => {
    jest.useFakeTimers();
    await expect(settle(new Promise(() => undefined), jest)).rejects.toThrow(
      'settle(): the promise is still pending; no fake timer and no request is left that could settle it. ' +
        'Pending: 0 fake timers; no request waiting for an answer',
    );
  });

  test('a rejected call rejects settle() with its own error', async () => {
    jest.useFakeTimers();
    nockRoute(nock(API), 'GET /v1/items', ['404']);
    await expect(settle(client(API).get('/v1/items'), jest)).rejects.toMatchObject({
      response: { status: 404 },
      config: { retryState: { attempts: 1, stopReason: 'not-retryable' } },
    });
  });
});

describe('bad input', () => {
  test('no promise, no fake clock, fake timers not installed, a bad bound: a TypeError naming it', async () => {
    const call = Promise.resolve(1);
    await expect(settle(42 as never, jest)).rejects.toThrow(
      new TypeError('axios-resilience/testing: settle() needs a promise first, got the number 42'),
    );
    await expect(settle(call, {} as never)).rejects.toThrow(
      new TypeError(
        'axios-resilience/testing: settle() needs a fake clock: `jest`, `vi`, or an @sinonjs/fake-timers clock, got an object',
      ),
    );
    await expect(settle(call, jest)).rejects.toThrow(
      new TypeError(
        'axios-resilience/testing: settle() needs fake timers installed first: call jest.useFakeTimers() or vi.useFakeTimers()',
      ),
    );
    jest.useFakeTimers();
    await expect(settle(call, jest, { maxFakeMs: -1 })).rejects.toThrow(
      new TypeError(
        'axios-resilience/testing: settle() option maxFakeMs must be a finite number >= 0, got the number -1',
      ),
    );
    await expect(settle(call, jest, { ioGraceMs: '50' as never })).rejects.toThrow(
      new TypeError(
        'axios-resilience/testing: settle() option ioGraceMs must be a finite number >= 0, got the string "50"',
      ),
    );
    await expect(settle(call, jest)).resolves.toBe(1);
  });
});
