/**
 * Every failed call is given up once, however it was cancelled: a `CancelToken` (as @nestjs/axios
 * cancels every unsubscribed call) or an `AbortSignal`, before it was sent, in the tick it began, in
 * flight, or during its wait. `onGiveUp`, `plugin.on('giveUp')` and the give-up metric (the real
 * OpenTelemetry SDK) each see it once, with stop reason `'aborted'`. Real node:http server on
 * 127.0.0.1; the "in flight" server holds its answer until the test ends. The same four moments run
 * under the real @nestjs/axios in a child process (NestJS 12 is ESM only).
 */
import axios from 'axios';
import type { AxiosInstance, CanceledError } from 'axios';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { DataPointType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { retryPlugin } from '../../lib';
import type { GiveUpEvent, RetryPlugin } from '../../lib';
import { instrumentMetrics } from '../../lib/otel';
import { startServer, until } from '../support/test-server';
import type { TestServer } from '../support/test-server';

class PullReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

type Moment = 'before it was sent' | 'in the tick it began' | 'in flight' | 'during its wait';
type How = 'CancelToken' | 'AbortSignal';
const MOMENTS: Moment[] = ['before it was sent', 'in the tick it began', 'in flight', 'during its wait'];

let server: TestServer;
beforeAll(async () => {
  // /hold never answers (the test ends it); /down answers 503, so the call waits to retry.
  server = await startServer((req, res) => {
    if (req.url.startsWith('/down')) res.writeHead(503).end();
  });
});
afterAll(() => server.close());

/** One cancel of `how` at `moment`; resolves with the error the caller got. */
async function cancelAt(http: AxiosInstance, how: How, moment: Moment, retries: number[]): Promise<unknown> {
  const source = axios.CancelToken.source();
  const controller = new AbortController();
  const cancel = () => (how === 'CancelToken' ? source.cancel('user left') : controller.abort());
  const config = how === 'CancelToken' ? { cancelToken: source.token } : { signal: controller.signal };
  if (moment === 'before it was sent') cancel();
  const path = moment === 'during its wait' ? '/down' : '/hold';
  const seen = server.requests.length;
  const retried = retries.length;
  const call = http.get(`${server.url}${path}`, config).then(
    () => new Error('the call succeeded'),
    (error: unknown) => error,
  );
  if (moment === 'in the tick it began') cancel();
  if (moment === 'in flight') {
    await until(() => server.requests.length > seen);
    cancel();
  }
  if (moment === 'during its wait') {
    await until(() => retries.length > retried);
    cancel();
  }
  return call;
}

describe.each<[How, string]>([
  ['CancelToken', 'only synchronous interceptors'],
  ['CancelToken', 'an async request interceptor after the plugin (auth)'],
  ['AbortSignal', 'only synchronous interceptors'],
  ['AbortSignal', 'an async request interceptor after the plugin (auth)'],
])('a call cancelled through a %s, with %s', (how, interceptors) => {
  let plugin: RetryPlugin;
  let http: AxiosInstance;
  let provider: MeterProvider;
  let reader: PullReader;
  let stop: () => void;
  const giveUps: GiveUpEvent[] = [];
  const heard: Array<{ origin: string; stopReason: string }> = [];
  const retries: number[] = [];

  beforeAll(() => {
    reader = new PullReader();
    provider = new MeterProvider({ readers: [reader] });
    // A 30 s wait (random 0.5 × 60 s base): only the cancel ends it.
    plugin = retryPlugin({
      baseDelayMs: 60_000,
      maxDelayMs: 60_000,
      random: () => 0.5,
      onGiveUp: (event) => void giveUps.push(event),
      onRetry: (event) => void retries.push(event.attempt),
    });
    plugin.on('giveUp', ({ origin, stopReason }) => void heard.push({ origin, stopReason }));
    stop = instrumentMetrics(plugin, provider.getMeter('cancel-test'));
    http = axios.create();
    plugin.install(http);
    if (interceptors.startsWith('an async')) http.interceptors.request.use(async (config) => config);
  });
  afterAll(async () => {
    stop();
    await plugin.close();
    await provider.shutdown();
  });

  test.each(MOMENTS)('%s: one aborted give-up, heard once, the caller gets a cancel', async (moment) => {
    const before = giveUps.length;
    const error = await cancelAt(http, how, moment, retries);
    expect(axios.isCancel(error)).toBe(true);
    // The give-up of a cancel that reached no adapter comes a tick after the cancel.
    await until(() => giveUps.length > before);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(giveUps.slice(before).map((e) => e.stopReason)).toEqual(['aborted']);
    expect(heard.slice(before)).toEqual([
      { origin: new URL(server.url).origin.replace(/\/$/, ''), stopReason: 'aborted' },
    ]);
  });

  test('the give-up metric counted the four', async () => {
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'axios_resilience.give_ups');
    expect(metric?.dataPointType).toBe(DataPointType.SUM);
    const points = (metric?.dataPoints ?? []) as Array<{ attributes: Record<string, unknown>; value: number }>;
    expect(points.map(({ attributes, value }) => ({ attributes, value }))).toEqual([
      { attributes: { 'server.address': '127.0.0.1', stop_reason: 'aborted' }, value: 4 },
    ]);
  });
});

test('a cancelled call rejects with an error of its own: the token’s words, the story on its stack, and its config', async () => {
  const plugin = retryPlugin({ baseDelayMs: 60_000, maxDelayMs: 60_000, random: () => 0.5 });
  const http = axios.create();
  plugin.install(http);
  const retries: number[] = [];
  plugin.on('retry', (event) => void retries.push(event.attempt));
  try {
    const error = (await cancelAt(http, 'CancelToken', 'during its wait', retries)) as CanceledError<unknown>;
    expect(error.message).toBe('user left');
    expect(error.stack?.split('\n')[0]).toMatch(
      /^CanceledError: user left \(1 attempt over \d+ ms; stopped: aborted\)$/,
    );
    expect(error.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'aborted' });
    expect(error.code).toBe('ERR_CANCELED');
  } finally {
    await plugin.close();
  }
});

test('a CancelToken cancelled before the call: the caller gets the token’s own reason, untouched; onGiveUp saw aborted once', async () => {
  const giveUps: GiveUpEvent[] = [];
  const plugin = retryPlugin({ onGiveUp: (event) => void giveUps.push(event) });
  const http = axios.create();
  plugin.install(http);
  try {
    const source = axios.CancelToken.source();
    source.cancel('user left');
    const reason = source.token.reason as unknown as CanceledError<unknown>;
    // (axios itself appends each call's frames to the stack; its first line is the plugin's to leave alone.)
    const shape = () => ({
      keys: Reflect.ownKeys(reason),
      head: reason.stack?.split('\n')[0],
      message: reason.message,
    });
    const before = shape();
    const seen = server.requests.length;
    const errors = await Promise.all(
      [1, 2].map(() => http.get(`${server.url}/hold`, { cancelToken: source.token }).catch((e: unknown) => e)),
    );
    // Plain axios gives every call of the token that one reason (no config); so does the plugin.
    expect(errors).toEqual([reason, reason]);
    expect(errors[0]).toBe(reason);
    expect(errors[1]).toBe(reason);
    expect(shape()).toEqual(before);
    expect(before.head).toBe('CanceledError: user left');
    expect((reason as { config?: unknown }).config).toBeUndefined();
    await until(() => giveUps.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(giveUps.map((e) => [e.error, e.stopReason, e.retryState.attempts])).toEqual([
      [reason, 'aborted', 0],
      [reason, 'aborted', 0],
    ]);
    expect(server.requests.length).toBe(seen);
  } finally {
    await plugin.close();
  }
});

test('under the real @nestjs/axios (HttpService, rxjs): the four moments give four aborted give-ups', async () => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, '..', 'support', 'nest-cancel-child.mts'), server.url],
    { cwd: path.resolve(__dirname, '../..'), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => {
    const killer = setTimeout(() => child.kill(), 15_000);
    child.on('exit', (exitCode) => {
      clearTimeout(killer);
      resolve(exitCode);
    });
  });
  expect(code).toBe(0);
  const result = JSON.parse(output.trim().split('\n').pop()!) as { giveUps: string[]; heard: number; requests: number };
  expect(result.giveUps).toEqual(['aborted', 'aborted', 'aborted', 'aborted']);
  expect(result.heard).toBe(4);
});
