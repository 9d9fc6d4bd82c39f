/**
 * `delay(ctx)`: the caller's own wait before each retry — linear, constant, per error — over the
 * one the plugin computed. Its answer is still capped by `maxDelayMs` and the deadline, and a
 * server's longer wait still wins. A real node:http server on 127.0.0.1 counts the requests;
 * `retryState.delaysMs` holds the waits the plugin chose (small, so the test waits for real only
 * a few hundred ms in all).
 */
import type { AxiosError } from 'axios';
import type { DelayContext, RetryEvent } from '../../lib';
import { rejection } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { serverPerTest, statuses } from '../support/test-server';

const t = serverPerTest();
const setup = setupOn(t);

test('linear: attempt × 10 ms, and the context says which retry, what failed and what was computed', async () => {
  t.handler = statuses(503, 503, 503, 200);
  const seen: DelayContext[] = [];
  const { http } = setup({
    baseDelayMs: 100,
    random: () => 0.5,
    delay: (ctx) => {
      seen.push(ctx);
      return ctx.attempt * 10;
    },
  });
  const response = await http.get(`${t.server.url}/r`);
  expect(response.status).toBe(200);
  expect(t.server.requests).toHaveLength(4);
  expect(response.config.retryState?.delaysMs).toEqual([10, 20, 30]);
  // Full jitter at random 0.5: 50, 100, 200 ms computed.
  expect(seen.map(({ attempt, computedMs, serverMs }) => ({ attempt, computedMs, serverMs }))).toEqual([
    { attempt: 1, computedMs: 50, serverMs: undefined },
    { attempt: 2, computedMs: 100, serverMs: undefined },
    { attempt: 3, computedMs: 200, serverMs: undefined },
  ]);
  expect(seen.map((ctx) => (ctx.error as AxiosError).response?.status)).toEqual([503, 503, 503]);
  expect(seen[0]!.config.url).toBe(`${t.server.url}/r`);
});

test('per error: a 503 waits 5 ms, a timeout 15 ms; onRetry reports the source as delay', async () => {
  // Only the second attempt is held, and only it has a timeout: a 50 ms one on every attempt could
  // also end the 503 or the 200 that a loaded machine is slow to deliver.
  t.handler = (req, res) => {
    const attempt = req.headers['x-retry-attempt'];
    if (attempt === '1') return res.writeHead(503).end();
    if (attempt === '2') return; // held: its 50 ms timeout ends it
    res.writeHead(200).end('ok');
  };
  const events: RetryEvent[] = [];
  const { http } = setup({
    attemptHeader: true,
    beforeAttempt: (config, { attempt }) => void (config.timeout = attempt === 2 ? 50 : 0),
    delay: ({ error }) => (error.response?.status === 503 ? 5 : error.code === 'ECONNABORTED' ? 15 : undefined),
    onRetry: (event) => void events.push(event),
  });
  const response = await http.get(`${t.server.url}/r`);
  expect(response.status).toBe(200);
  expect(response.config.retryState?.delaysMs).toEqual([5, 15]);
  expect(events.map((e) => [e.reason, e.delayMs, e.delaySource])).toEqual([
    ['503', 5, 'delay'],
    ['ECONNABORTED', 15, 'delay'],
  ]);
});

test('undefined keeps the computed wait; the answer is capped by maxDelayMs', async () => {
  t.handler = statuses(503, 503, 200);
  const { http } = setup({
    baseDelayMs: 8,
    maxDelayMs: 20,
    random: () => 0.5,
    delay: ({ attempt }) => (attempt === 1 ? undefined : 10_000),
  });
  const response = await http.get(`${t.server.url}/r`);
  expect(response.config.retryState?.delaysMs).toEqual([4, 20]);
});

test('a server that asks for longer wins (retry-after-ms), and delay sees what it asked', async () => {
  t.handler = (_req, res, index) =>
    index === 0 ? res.writeHead(503, { 'retry-after-ms': '120' }).end() : res.writeHead(200).end('ok');
  const asked: Array<number | undefined> = [];
  const events: RetryEvent[] = [];
  const { http } = setup({
    delay: ({ serverMs }) => {
      asked.push(serverMs);
      return 5;
    },
    onRetry: (event) => void events.push(event),
  });
  const response = await http.get(`${t.server.url}/r`);
  expect(response.config.retryState?.delaysMs).toEqual([120]);
  expect(asked).toEqual([120]);
  expect(events[0]).toMatchObject({ delayMs: 120, delaySource: 'retry-after' });
});

test('…but a longer answer than the server asked for is the caller’s to choose', async () => {
  t.handler = (_req, res, index) =>
    index === 0 ? res.writeHead(503, { 'retry-after-ms': '10' }).end() : res.writeHead(200).end('ok');
  const { http } = setup({ delay: () => 40 });
  expect((await http.get(`${t.server.url}/r`)).config.retryState?.delaysMs).toEqual([40]);
});

test('a wait past the deadline stops the call (deadline), nothing more is sent', async () => {
  t.handler = statuses(503, 200);
  const { http } = setup({ deadlineMs: 200, delay: () => 5000, maxDelayMs: 60_000 });
  const error = await rejection(http.get(`${t.server.url}/r`));
  expect((error.config as { retryState?: unknown }).retryState).toMatchObject({ attempts: 1, stopReason: 'deadline' });
  expect(t.server.requests).toHaveLength(1);
});

test.each([
  ['a negative number', () => -1, /delay\(\) must return a number of ms >= 0 or undefined, got the number -1/],
  ['NaN', () => NaN, /got the number NaN/],
  ['a string', () => '100' as unknown as number, /got the string "100"/],
])('%s fails the call as a throwing hook does (hook-failed), and sends nothing more', async (_name, delay, message) => {
  t.handler = statuses(503, 200);
  const { http } = setup({ delay });
  const error = await rejection(http.get(`${t.server.url}/r`));
  const state = (error.config as { retryState?: { stopReason?: string; hookError?: Error } }).retryState;
  expect(state?.stopReason).toBe('hook-failed');
  expect(state?.hookError).toBeInstanceOf(TypeError);
  expect(state?.hookError?.message).toMatch(message);
  expect(t.server.requests).toHaveLength(1);
});

test('a delay that throws fails the call with hook-failed; its error is on retryState.hookError', async () => {
  t.handler = statuses(503, 200);
  const broken = new Error('no schedule for this error');
  const { http } = setup({
    delay: () => {
      throw broken;
    },
  });
  const error = await rejection(http.get(`${t.server.url}/r`));
  expect((error.config as { retryState?: unknown }).retryState).toMatchObject({
    stopReason: 'hook-failed',
    hookError: broken,
  });
  expect(error.message).toBe('Request failed with status code 503');
  expect(error.stack?.split('\n')[0]).toMatch(
    /\(1 attempt over \d+ ms; stopped: hook-failed: Error: no schedule for this error\)$/,
  );
});

test.each([
  [
    'delay',
    {
      delay: (): never => {
        throw new Error('no schedule');
      },
    },
  ],
  [
    'onRetry',
    {
      onRetry: (): never => {
        throw new Error('no schedule');
      },
    },
  ],
])(
  'a %s that throws while a good answer shouldRetryResponse asked to retry waits: the call fails with its error (hook-failed), nothing more is sent',
  async (_name, hook) => {
    t.handler = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"pending"}');
    const { http } = setup({ shouldRetryResponse: () => true, ...hook });
    const error = await rejection(http.get(`${t.server.url}/job`));
    expect(t.server.requests).toHaveLength(1);
    expect(error.message).toBe('no schedule');
    expect(error.stack?.split('\n')[0]).toMatch(/^Error: no schedule \(1 attempt over \d+ ms; stopped: hook-failed\)$/);
    const state = (error.config as { retryState?: { stopReason?: string; hookError?: Error } }).retryState;
    expect(state?.stopReason).toBe('hook-failed');
    expect(state?.hookError?.message).toBe('no schedule');
  },
);

test('per request: config.retry.delay over the plugin’s (constant 7 ms for this call only)', async () => {
  t.handler = statuses(503, 503, 200);
  const { http } = setup({ delay: () => 1 });
  const response = await http.get(`${t.server.url}/r`, { retry: { delay: () => 7 } });
  expect(response.config.retryState?.delaysMs).toEqual([7, 7]);
});
