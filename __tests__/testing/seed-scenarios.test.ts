/**
 * The seed's three scenarios, as a user of axios-resilience/testing writes them in jest: fail twice
 * then succeed; a 429 with `Retry-After: 5` on fake timers; a 15 s hang against a timeout. Each
 * checks the waits with assertRetryWaits, and the whole file runs in well under a second of real
 * time. The chaos variant gets the same failures from inside the client, with no script at all.
 */
import axios from 'axios';
import { retryPlugin } from '../../lib';
import type { RetryPluginOptions } from '../../lib';
import {
  assertCreatedOnce,
  assertRetryWaits,
  createIdempotentResource,
  gapsMs,
  settle,
  startFaultServer,
} from '../../lib/testing';
import type { FaultServer, FaultServerOptions } from '../../lib/testing';

let server: FaultServer | undefined;
const plugins: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  jest.useRealTimers();
  while (plugins.length) await plugins.pop()!.close();
  await server?.close();
  server = undefined;
});

async function start(options: FaultServerOptions) {
  server = await startFaultServer(options);
  return server;
}

function client(options: RetryPluginOptions) {
  const plugin = retryPlugin(options);
  plugins.push(plugin);
  const http = axios.create({ baseURL: server!.url });
  plugin.install(http);
  return http;
}

/** jest's fake timers as a user turns them on first: everything faked; `settle()` drives them. */
function fakeTimers(): void {
  jest.useFakeTimers();
}

const started = Date.now();
afterAll(() => expect(Date.now() - started).toBeLessThan(5000));

test('fail twice then succeed: three requests, waits within the backoff, one payment', async () => {
  const payments = createIdempotentResource();
  await start({ routes: { 'POST /v1/payments': { steps: ['503', '503', '201'], resource: payments } } });
  const http = client({ baseDelayMs: 20, idempotencyKey: { serverDedupes: true } });
  const response = await http.post('/v1/payments', { amount: 100 });
  expect(response.status).toBe(201);
  expect(server!.requestsTo('POST /v1/payments')).toHaveLength(3);
  assertRetryWaits(response.config.retryState, { baseDelayMs: 20 });
  assertCreatedOnce(payments, [response.config.retryState]);
});

test('429 with Retry-After: 5, on fake timers: the retry waits 5 s and not a millisecond less', async () => {
  fakeTimers();
  await start({ routes: { 'GET /v1/items': [{ status: 429, headers: { 'Retry-After': '5' } }, '200'] } });
  const http = client({});
  const response = await settle(http.get('/v1/items'), jest);
  expect(response.status).toBe(200);
  expect(response.config.retryState?.delaysMs).toEqual([5000]);
  expect(gapsMs(server!.requests)).toEqual([5000]);
  assertRetryWaits(response.config.retryState, { serverWaitsMs: [5000] });
});

test('a 15 s hang against a 1 s timeout: cut off at 1 s, retried, answered', async () => {
  fakeTimers();
  await start({ routes: { 'GET /v1/items': [{ delayMs: 15_000 }, '200'] } });
  const http = client({ baseDelayMs: 100, random: () => 0.5 });
  const response = await settle(http.get('/v1/items', { timeout: 1000 }), jest);
  expect(response.status).toBe(200);
  // The retry's wait: half of the first backoff ceiling (random 0.5), 50 ms, after the 1 s timeout.
  expect(response.config.retryState).toMatchObject({ attempts: 2, delaysMs: [50] });
  expect(gapsMs(server!.requests)).toEqual([1050]);
  assertRetryWaits(response.config.retryState, { baseDelayMs: 100 });
});

test('the same failures from inside the client: chaos against a server that never fails', async () => {
  await start({ routes: { 'GET /v1/items': ['200'] } });
  const http = client({
    baseDelayMs: 20,
    chaos: { seed: 31, faults: [{ rate: 0.5, status: 503 }] },
  });
  const responses = await Promise.all(Array.from({ length: 20 }, () => http.get('/v1/items')));
  const injected = responses.reduce((sum, r) => sum + r.config.retryState!.injected!, 0);
  expect(injected).toBeGreaterThan(0);
  // Only the attempts that were not injected reached the server: one per call.
  expect(server!.requests).toHaveLength(20);
  for (const response of responses) assertRetryWaits(response.config.retryState, { baseDelayMs: 20 });
});
