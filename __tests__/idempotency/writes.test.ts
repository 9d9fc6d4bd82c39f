/**
 * Writes are re-sent only where the server dedupes them. Against real node:http servers that create
 * one order per request they process, whatever Idempotency-Key it carries (as most internal and
 * partner APIs do), the plugin with its defaults must never create more orders than plain axios.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import axios from 'axios';
import type { AxiosError, AxiosInstance } from 'axios';
import { retryPlugin } from '../../lib';
import type { RetryPlugin, RetryPluginOptions } from '../../lib';
import { rejection } from '../support/helpers';
import { COPY_HEADER, copyOf, numberedAdapter } from '../support/numbered-adapter';

/**
 * The client's timeout, and when a slow answer comes. A healthy answer from 127.0.0.1 must come well
 * inside the timeout: at 100 ms, npm test with two CPU-bound loops beside it timed healthy answers out.
 */
const TIMEOUT_MS = 500;
const SLOW_MS = TIMEOUT_MS + 300;

/** What the order server does with the n-th request it receives (the last entry repeats). */
type Step =
  | 'ok'
  /** Creates the order, then answers 201 only after the client's timeout (`SLOW_MS`). */
  | 'slow'
  /** Creates the order, then drops the connection without an answer. */
  | 'reset-after-work'
  /** Creates the order, then answers with this status (a gateway that gave up, an app that failed late). */
  | { commitThen: number }
  /** Answers this status without creating anything. */
  | { refuse: number; headers?: Record<string, string> };

interface OrderServer {
  url: string;
  port: number;
  /** Orders created. */
  orders: number;
  /** Idempotency-Key of each request received. */
  keys: Array<string | undefined>;
  close(): Promise<void>;
}

async function orderServer(steps: Step[], port = 0): Promise<OrderServer> {
  const state = { orders: 0, keys: [] as Array<string | undefined> };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      // A numbered client (numberedAdapter) names each request's place in the order it was sent: a
      // hedged call's steps then go to its copies as meant, whichever copy reaches the server first.
      const n = req.headers[COPY_HEADER] === undefined ? state.keys.length : copyOf(req.headers);
      const step = steps[Math.min(n, steps.length - 1)]!;
      state.keys.push(req.headers['idempotency-key'] as string | undefined);
      const create = (): string => JSON.stringify({ order: ++state.orders });
      if (step === 'ok') return void res.writeHead(201).end(create());
      if (step === 'slow') {
        const body = create();
        const timer = setTimeout(() => res.writeHead(201).end(body), SLOW_MS);
        res.on('close', () => clearTimeout(timer));
        return;
      }
      if (step === 'reset-after-work') {
        create();
        return void req.socket.destroy();
      }
      if ('commitThen' in step) {
        create();
        return void res.writeHead(step.commitThen).end('{}');
      }
      res.writeHead(step.refuse, step.headers).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    get orders() {
      return state.orders;
    },
    keys: state.keys,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function serve(steps: Step[]): Promise<OrderServer> {
  const server = await orderServer(steps);
  open.push(server);
  return server;
}

/** The plugin with its defaults, but no waits (random 0) and a `TIMEOUT_MS` axios timeout. */
function api(options: RetryPluginOptions = {}): { http: AxiosInstance; plugin: RetryPlugin } {
  const instance = axios.create({ timeout: TIMEOUT_MS });
  const plugin = retryPlugin({ random: () => 0, ...options });
  plugin.install(instance);
  open.push(plugin);
  return { http: instance, plugin };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('a server that ignores Idempotency-Key gets one order, as from plain axios', () => {
  test.each<[string, Step, string]>([
    ['a timeout', 'slow', 'ECONNABORTED'],
    ['a reset after the work was done', 'reset-after-work', 'ECONNRESET'],
    ['a 502 after the work', { commitThen: 502 }, '502'],
    ['a 503 after the work', { commitThen: 503 }, '503'],
    ['a 504 after the work', { commitThen: 504 }, '504'],
  ])('after %s: one order, stop reason non-idempotent, the key kept', async (_name, failure, reason) => {
    const plainServer = await serve([failure, 'ok']);
    await rejection(axios.post(plainServer.url, { item: 1 }, { timeout: TIMEOUT_MS }));
    expect(plainServer.orders).toBe(1);

    const server = await serve([failure, 'ok']);
    const { http } = api();
    const error = (await rejection(http.post(server.url, { item: 1 }))) as unknown as AxiosError;
    expect(server.orders).toBe(plainServer.orders);
    expect(server.keys).toHaveLength(1);
    const state = error.config!.retryState!;
    expect(state).toMatchObject({ attempts: 1, stopReason: 'non-idempotent' });
    expect(state.idempotencyKey).toMatch(UUID);
    expect(server.keys[0]).toBe(state.idempotencyKey);
    expect(error.code === reason || String(error.response?.status) === reason).toBe(true);
  });

  test('a PATCH too', async () => {
    const server = await serve(['slow', 'ok']);
    const { http } = api();
    const error = (await rejection(http.patch(server.url, { item: 1 }))) as unknown as AxiosError;
    expect(server.orders).toBe(1);
    expect(error.config!.retryState).toMatchObject({ attempts: 1, stopReason: 'non-idempotent' });
  });

  test('a 409 to a generated key is not taken for "in progress": one request, non-idempotent', async () => {
    const server = await serve([{ refuse: 409 }, 'ok']);
    const { http } = api();
    const error = (await rejection(http.post(server.url, {}))) as unknown as AxiosError;
    expect(server.keys).toHaveLength(1);
    expect(error.config!.retryState).toMatchObject({ attempts: 1, stopReason: 'non-idempotent' });
  });

  test('the issue’s case: a server slower than the timeout, one POST with the defaults: one order (0.3: six)', async () => {
    const server = await serve(['slow']);
    const { http } = api({ random: Math.random, baseDelayMs: 1, maxDelayMs: 5 });
    await rejection(http.post(server.url, { item: 1 }));
    // Let every late answer arrive before counting.
    await new Promise((resolve) => setTimeout(resolve, SLOW_MS - TIMEOUT_MS + 50));
    expect(server.orders).toBe(1);
  });
});

describe('writes the server provably did not process are retried, with or without a key', () => {
  test.each<[string, RetryPluginOptions]>([
    ['a generated key', {}],
    ['no key', { idempotencyKey: false }],
  ])('429 then 201, with %s: retried, one order', async (_name, options) => {
    const server = await serve([{ refuse: 429, headers: { 'Retry-After': '0' } }, 'ok']);
    const { http } = api(options);
    const response = await http.post(server.url, {});
    expect(response.status).toBe(201);
    expect(server.orders).toBe(1);
    expect(server.keys).toHaveLength(2);
    expect(server.keys[1]).toBe(server.keys[0]);
  });

  test.each<[string, RetryPluginOptions]>([
    ['a generated key', {}],
    ['no key', { idempotencyKey: false }],
  ])('408 then 201, with %s: retried, one order', async (_name, options) => {
    const server = await serve([{ refuse: 408 }, 'ok']);
    const { http } = api(options);
    expect((await http.post(server.url, {})).status).toBe(201);
    expect(server.orders).toBe(1);
    expect(server.keys).toHaveLength(2);
  });

  test.each<[string, RetryPluginOptions]>([
    ['a generated key', {}],
    ['no key', { idempotencyKey: false }],
  ])('a refused connection, with %s: retried once the server listens, one order', async (_name, options) => {
    // A port nobody listens on; the server starts there while the plugin waits to retry.
    const probe = await orderServer(['ok']);
    const port = probe.port;
    await probe.close();
    let started: Promise<OrderServer> | undefined;
    const reasons: string[] = [];
    const { http } = api({
      ...options,
      onRetry: async ({ reason }) => {
        reasons.push(reason);
        started ??= orderServer(['ok'], port);
        open.push(await started);
      },
    });
    const response = await http.post(`http://127.0.0.1:${port}/orders`, {});
    expect(response.status).toBe(201);
    expect(reasons).toEqual(['ECONNREFUSED']);
    expect((await started!).orders).toBe(1);
  });
});

describe('a server declared to dedupe, or a key the caller set, is retried after it may have processed', () => {
  test.each<[string, RetryPluginOptions]>([
    ['serverDedupes: true', { idempotencyKey: { serverDedupes: true } }],
    ['serverDedupes: [its origin]', {}],
    [
      'serverDedupes: a predicate',
      { idempotencyKey: { serverDedupes: (origin) => origin.startsWith('http://127.0.0.1:') } },
    ],
  ])('%s: a 503 and a timeout are retried with one key', async (name, options) => {
    const server = await serve([{ refuse: 503 }, 'slow', 'ok']);
    const declared = name.includes('[') ? { idempotencyKey: { serverDedupes: [`${server.url}/any/path`] } } : options;
    const { http } = api(declared);
    const response = await http.post(server.url, {});
    expect(response.status).toBe(201);
    expect(server.keys).toHaveLength(3);
    expect(new Set(server.keys).size).toBe(1);
    expect(response.config.retryState).toMatchObject({ attempts: 3, idempotencyKey: server.keys[0] });
  });

  test('an origin list names only those origins: another origin’s write stops', async () => {
    const server = await serve([{ refuse: 503 }, 'ok']);
    const { http } = api({ idempotencyKey: { serverDedupes: ['https://api.stripe.com'] } });
    const error = (await rejection(http.post(server.url, {}))) as unknown as AxiosError;
    expect(error.config!.retryState).toMatchObject({ stopReason: 'non-idempotent' });
  });

  test('per request: retry.idempotencyKey.serverDedupes declares one call', async () => {
    const server = await serve([{ refuse: 503 }, 'ok']);
    const { http } = api();
    const response = await http.post(server.url, {}, { retry: { idempotencyKey: { serverDedupes: true } } });
    expect(response.config.retryState).toMatchObject({ attempts: 2 });
  });

  test.each<[string, object]>([
    ['the header', { headers: { 'Idempotency-Key': 'order-41' } }],
    ['retry.idempotencyKey', { retry: { idempotencyKey: 'order-41' } }],
  ])('a key the caller set in %s counts as deduped: retried after a timeout', async (_name, config) => {
    const server = await serve(['slow', 'ok']);
    const { http } = api();
    const response = await http.post(server.url, {}, config);
    expect(response.status).toBe(201);
    expect(server.keys).toEqual(['order-41', 'order-41']);
    expect(response.config.retryState).toMatchObject({ attempts: 2, idempotencyKey: 'order-41' });
  });
});

describe('hedging a write', () => {
  const slowThenFast = (): Step[] => ['slow', 'ok'];

  test('a POST whose key is not declared deduped is not hedged: it goes out once', async () => {
    const server = await serve(slowThenFast());
    const instance = axios.create();
    const plugin = retryPlugin({ random: () => 0, hedge: { delayMs: 20 } });
    plugin.install(instance);
    open.push(plugin);
    const response = await instance.post(server.url, {});
    expect(response.status).toBe(201);
    expect(server.keys).toHaveLength(1);
    expect(server.orders).toBe(1);
    expect(response.config.retryState?.hedges).toBeUndefined();
  });

  test('a POST to a server declared to dedupe is hedged with the same key', async () => {
    const server = await serve(slowThenFast());
    const instance = axios.create({ adapter: numberedAdapter('http') });
    const plugin = retryPlugin({ random: () => 0, hedge: { delayMs: 20 }, idempotencyKey: { serverDedupes: true } });
    plugin.install(instance);
    open.push(plugin);
    const response = await instance.post(server.url, {});
    expect(response.status).toBe(201);
    expect(server.keys).toHaveLength(2);
    expect(server.keys[1]).toBe(server.keys[0]);
    expect(response.config.retryState).toMatchObject({ hedges: 1, hedgeWon: true });
  });
});

describe('bad input', () => {
  test.each([
    [{ serverDedupes: 'yes' }, /idempotencyKey\.serverDedupes must be a boolean, an array of origins or a function/],
    [{ serverDedupes: 1 }, /idempotencyKey\.serverDedupes must be a boolean/],
    [{ serverDedupes: null }, /idempotencyKey\.serverDedupes must be a boolean/],
    [{ serverDedupes: ['api.example.com'] }, /idempotencyKey\.serverDedupes must list absolute URLs/],
    [{ serverDedupes: [42] }, /idempotencyKey\.serverDedupes must list absolute URLs/],
  ])('%j is a TypeError naming the field', (idempotencyKey, message) => {
    expect(() => retryPlugin({ idempotencyKey: idempotencyKey as never })).toThrow(TypeError);
    expect(() => retryPlugin({ idempotencyKey: idempotencyKey as never })).toThrow(message);
  });

  test('per request, at the call, with nothing sent', async () => {
    const server = await serve(['ok']);
    const { http } = api();
    const error = await rejection(
      http.post(server.url, {}, { retry: { idempotencyKey: { serverDedupes: 'yes' as never } } }),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/config\.retry\.idempotencyKey\.serverDedupes/);
    expect(server.keys).toHaveLength(0);
  });
});
