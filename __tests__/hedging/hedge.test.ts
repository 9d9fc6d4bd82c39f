/**
 * Hedged requests against real node:http servers on 127.0.0.1: a slow copy loses to a fast one and
 * is aborted, only calls safe to send twice are hedged, and the budget, the breaker and aborts
 * govern every copy.
 */
import axios from 'axios';
import type { AxiosError } from 'axios';
import { CircuitOpenError, RetryBudget, retryPlugin } from '../../lib';
import type { HedgeEvent, RetryPluginOptions } from '../../lib';
import { LatencyWindow } from '../../lib/guards/latency';
import { hedgeDelay } from '../../lib/engine/hedge';
import { fake, rejection, until as untilFaked } from '../support/helpers';
import { copyOf, numberedAdapter } from '../support/numbered-adapter';
import { startServer, until } from '../support/test-server';
import type { Handler, TestServer } from '../support/test-server';

const ADAPTERS = ['http', 'fetch'] as const;

let server: TestServer;
let handler: Handler;
/**
 * Whether each copy's connection closed before it was answered (an aborted copy), by the copy's place
 * in the order the plugin sent them (see numberedAdapter), not by the order the requests arrived in.
 */
let closedEarly: boolean[];
const plugins: Array<{ close(): Promise<void> }> = [];
const pending: Array<() => void> = [];

beforeEach(async () => {
  closedEarly = [];
  server = await startServer((req, res, index) => {
    const copy = copyOf(req.headers);
    closedEarly[copy] = false;
    res.on('close', () => (closedEarly[copy] = !res.writableEnded));
    handler(req, res, index);
  });
});
afterEach(async () => {
  jest.useRealTimers();
  while (plugins.length) await plugins.pop()!.close();
  for (const reply of pending.splice(0)) reply();
  await server.close();
});

function setup(options: RetryPluginOptions = {}, adapter: 'http' | 'fetch' = 'http') {
  const http = axios.create({ adapter: numberedAdapter(adapter) });
  const plugin = retryPlugin({ random: () => 0, budget: false, breaker: false, ...options });
  plugin.install(http);
  plugins.push(plugin);
  return { http, plugin };
}

/**
 * The first copy the plugin sends hangs (until the test ends); the others answer at once. By copy, not
 * by arrival: on a loaded machine the hedge can reach the server first, and would then be the one held.
 */
const slowFirst: Handler = (req, res) => {
  const copy = copyOf(req.headers);
  if (copy === 0) pending.push(() => res.writeHead(200).end('late'));
  else res.writeHead(200).end(`copy ${copy}`);
};

describe.each(ADAPTERS)('hedging (%s adapter)', (adapter) => {
  test('a slow first copy loses to a fast hedge; the loser is aborted and its connection closed', async () => {
    handler = slowFirst;
    const hedges: HedgeEvent[] = [];
    const { http } = setup({ hedge: { delayMs: 30 }, onHedge: (e) => void hedges.push(e) }, adapter);
    const started = Date.now();
    const response = await http.get(`${server.url}/item`);
    // The first copy hangs until the test ends: only the hedge can answer (the bound tells that from a hang).
    expect(Date.now() - started).toBeLessThan(5000);
    expect(response.data).toBe('copy 1');
    expect(response.config.retryState).toMatchObject({ attempts: 2, hedges: 1, hedgeWon: true });
    expect(hedges).toEqual([expect.objectContaining({ attempt: 2, delayMs: 30 })]);
    await until(() => closedEarly[0] === true, 10_000);
  });

  test('a fast answer sends no hedge at all', async () => {
    handler = (_req, res) => res.writeHead(200).end('fast');
    const { http } = setup({ hedge: { delayMs: 200 } }, adapter);
    const response = await http.get(`${server.url}/item`);
    expect(response.config.retryState).toMatchObject({ attempts: 1 });
    expect(response.config.retryState?.hedges).toBeUndefined();
    expect(server.requests).toHaveLength(1);
  });
});

test('with attemptHeader, a copy says it is a hedge ("2; hedge"); plugin.close() ends the copies already out', async () => {
  handler = () => undefined;
  const { http, plugin } = setup({ attemptHeader: true, hedge: { delayMs: 10 } });
  const call = rejection(http.get(`${server.url}/r`, { timeout: 400 }));
  await until(() => server.requests.length === 2, 10_000);
  const bySending = [...server.requests].sort((a, b) => copyOf(a.headers) - copyOf(b.headers));
  expect(bySending.map((r) => r.headers['x-retry-attempt'])).toEqual(['1', '2; hedge']);
  await plugin.close();
  await until(() => closedEarly[1] === true, 10_000);
  // The attempt itself ends as any attempt in flight does (here, at its timeout), and is not retried.
  const error = (await call) as unknown as AxiosError;
  expect(error.config?.retryState?.stopReason).toBe('aborted');
  expect(server.requests).toHaveLength(2);
});

describe('only calls safe to send twice', () => {
  test('a keyless POST is never hedged', async () => {
    handler = (_req, res, index) => setTimeout(() => res.writeHead(201).end(`${index}`), 120);
    const { http } = setup({ hedge: { delayMs: 10 }, idempotencyKey: false });
    await http.post(`${server.url}/pay`, { amount: 1 });
    expect(server.requests).toHaveLength(1);
  });

  test('a keyed POST is hedged with the same Idempotency-Key on both copies', async () => {
    handler = slowFirst;
    const { http } = setup({ hedge: { delayMs: 20 }, idempotencyKey: { serverDedupes: true } });
    const response = await http.post(`${server.url}/pay`, { amount: 1 });
    expect(response.status).toBe(200);
    // The hedge may have answered before the first copy, sent earlier, was read by the server.
    await until(() => server.requests.length === 2);
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(server.requests[1]!.body).toBe(server.requests[0]!.body);
  });

  test('a copy that fails does not fail the call while another is in flight', async () => {
    handler = (req, res) => {
      if (copyOf(req.headers) === 0) setTimeout(() => res.writeHead(200).end('slow but fine'), 150);
      else res.writeHead(409).end('in progress');
    };
    const { http } = setup({ hedge: { delayMs: 20 }, idempotencyKey: { serverDedupes: true } });
    const response = await http.post(`${server.url}/pay`, { amount: 1 });
    expect(response.data).toBe('slow but fine');
    expect(response.config.retryState?.hedgeWon).toBeUndefined();
  });
});

describe('the guards govern every copy', () => {
  test('a spent budget refuses the hedge', async () => {
    handler = (_req, res) => setTimeout(() => res.writeHead(200).end('ok'), 120);
    const { http } = setup({ budget: new RetryBudget({ ratio: 0, minPerSecond: 0 }), hedge: { delayMs: 10 } });
    const response = await http.get(`${server.url}/r`);
    expect(response.config.retryState?.hedges).toBeUndefined();
    expect(server.requests).toHaveLength(1);
  });

  test('an open breaker refuses the hedge (and then the call)', async () => {
    // Fake timers hold the hedge's delay until the breaker is open, however slow the machine; the
    // slow answer is held by the test, not by a timer.
    fake();
    let answerSlow: (() => void) | undefined;
    handler = (req, res) => {
      if (req.url === '/slow') answerSlow = () => res.writeHead(200).end('ok');
      else res.writeHead(503).end();
    };
    const { http } = setup({ retries: 0, breaker: { volumeThreshold: 2 }, hedge: { delayMs: 100 } });
    const slow = http.get(`${server.url}/slow`);
    await untilFaked(() => answerSlow !== undefined);
    for (let i = 0; i < 2; i++) await rejection(http.get(`${server.url}/fail`));
    expect(await rejection(http.get(`${server.url}/fail`))).toBeInstanceOf(CircuitOpenError);
    await jest.advanceTimersByTimeAsync(100);
    answerSlow!();
    expect((await slow).data).toBe('ok');
    expect(server.requests.filter((r) => r.url === '/slow')).toHaveLength(1);
    jest.useRealTimers();
  });

  test('an abort ends every copy', async () => {
    handler = () => undefined;
    const controller = new AbortController();
    const { http } = setup({ hedge: { delayMs: 10, maxHedges: 2 } });
    const call = rejection(http.get(`${server.url}/r`, { signal: controller.signal }));
    await until(() => server.requests.length === 3, 10_000);
    controller.abort();
    const error = (await call) as unknown as AxiosError;
    expect(axios.isCancel(error)).toBe(true);
    await until(() => closedEarly.length === 3 && closedEarly.every(Boolean), 10_000);
  });

  test('when every copy fails, the retry rules take over with the last failure', async () => {
    // Fake timers: the first attempt's hedge goes out when the test moves the clock, and the retry,
    // answered at once, is never hedged however slow the machine (its hedge timer never fires). (With
    // real timers, a machine under load answered the retry after its 300 ms: 4 attempts, 2 hedges.)
    fake();
    let failFirst: (() => void) | undefined;
    handler = (_req, res, index) => {
      if (index === 0) failFirst = () => res.writeHead(503).end();
      else if (index === 1) {
        res.writeHead(503).end();
        failFirst!();
      } else res.writeHead(200).end();
    };
    const { http } = setup({ retries: 1, hedge: { delayMs: 300 } });
    const call = http.get(`${server.url}/r`);
    await untilFaked(() => failFirst !== undefined);
    expect(server.requests).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(300);
    await untilFaked(() => server.requests.length === 3);
    const response = await call;
    expect(response.status).toBe(200);
    expect(response.config.retryState).toMatchObject({ attempts: 3, hedges: 1 });
  });
});

describe('the adaptive delay', () => {
  test('uses the fallback until 20 samples, then the percentile, never below the floor', () => {
    const hedge = { delayMs: 0, percentile: 0.95, maxHedges: 1, minDelayMs: 5, fallbackDelayMs: 100 };
    const window = new LatencyWindow();
    expect(hedgeDelay(hedge, window)).toBe(100);
    for (let i = 1; i <= 100; i++) window.record(i);
    expect(hedgeDelay(hedge, window)).toBe(95);
    const fast = new LatencyWindow();
    for (let i = 0; i < 50; i++) fast.record(1);
    expect(hedgeDelay(hedge, fast)).toBe(5);
  });

  test('hedge options are validated', () => {
    expect(() => retryPlugin({ hedge: { delayMs: 'p42' as never } })).toThrow(/hedge\.delayMs must be/);
    expect(() => retryPlugin({ hedge: { delayMs: 10, maxHedges: 0 } })).toThrow(/hedge\.maxHedges/);
    expect(() => retryPlugin({ hedge: { delayMs: 10, delay: 1 } as never })).toThrow(
      /hedge\.delay is not a known option/,
    );
  });
});
