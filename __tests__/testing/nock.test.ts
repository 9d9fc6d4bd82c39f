import axios from 'axios';
import type { AxiosError } from 'axios';
import nock from 'nock';
import { retryPlugin } from '../../lib';
import type { RetryPlugin } from '../../lib';
import { connectionReset, createIdempotentResource, nockRoute } from '../../lib/testing';
import { realTick } from '../support/helpers';
import { releaseMockSocketParsers } from '../support/mock-sockets';
import { useNock } from '../support/nock-helpers';

const ORIGIN = 'http://api.test';
let plugin: RetryPlugin | undefined;

useNock();
// The reset steps reply through nock's error path; see mock-sockets.ts for what that leaves behind.
releaseMockSocketParsers();
afterEach(async () => {
  await plugin?.close();
  plugin = undefined;
  // nock's "No match" errors reach the mock socket a tick after the request has rejected.
  for (let i = 0; i < 3; i++) await realTick();
  nock.cleanAll();
});

function retryingClient() {
  // The scripted routes stand in for an API that dedupes keys.
  plugin = retryPlugin({ baseDelayMs: 2, random: () => 0.5, idempotencyKey: { serverDedupes: [ORIGIN] } });
  const http = axios.create();
  plugin.install(http);
  return http;
}

describe('nockRoute', () => {
  test('plays 503, 503, 200 to a retrying client, one interceptor per step', async () => {
    const scope = nock(ORIGIN);
    const route = nockRoute(scope, 'GET /v1/items', ['503', '503', { body: { items: [] } }]);
    const response = await retryingClient().get(`${ORIGIN}/v1/items`);
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ items: [] });
    expect(response.config.retryState?.attempts).toBe(3);
    expect(route.requests.map((r) => r.step)).toEqual([0, 1, 2]);
    scope.done();
  });

  test('sends Retry-After, and the client waits what the server asked for, within its cap', async () => {
    const scope = nock(ORIGIN);
    nockRoute(scope, 'GET /limited', [{ status: 429, headers: { 'Retry-After': '5' } }, '200']);
    plugin = retryPlugin({ baseDelayMs: 2, maxDelayMs: 30, random: () => 0.5 });
    const http = axios.create();
    plugin.install(http);
    const response = await http.get(`${ORIGIN}/limited`);
    expect(response.status).toBe(200);
    // 5 s asked, clamped to maxDelayMs: the origin's pause, as the clock measured it (a timer may
    // fire a little late on a busy host).
    const [waited] = response.config.retryState!.delaysMs;
    expect(waited).toBeGreaterThanOrEqual(28);
    expect(waited).toBeLessThan(1000);
    scope.done();
  });

  test('a reset step fails the request with ECONNRESET, as a dropped socket does', async () => {
    const scope = nock(ORIGIN);
    nockRoute(scope, 'POST /a', [{ reset: 'before-commit' }]);
    const error = (await axios.post(`${ORIGIN}/a`, 'x').catch((e: unknown) => e)) as AxiosError;
    expect(error.code).toBe('ECONNRESET');
    expect(connectionReset()).toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' });
    scope.done();
  });

  test('a delay step holds the response back', async () => {
    const scope = nock(ORIGIN);
    nockRoute(scope, 'GET /slow', [{ delayMs: 40 }]);
    const started = Date.now();
    await axios.get(`${ORIGIN}/slow`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
    scope.done();
  });

  test('an idempotent resource behind nock: reset after commit, retried, one payment', async () => {
    const scope = nock(ORIGIN);
    const payments = createIdempotentResource();
    const route = nockRoute(scope, 'POST /v1/payments', {
      steps: [{ reset: 'after-commit' }, '201'],
      resource: payments,
    });
    const response = await retryingClient().post(`${ORIGIN}/v1/payments`, { amount: 42 });
    expect(response.status).toBe(201);
    expect(payments.created).toBe(1);
    const key = response.config.retryState!.idempotencyKey!;
    expect(route.requests.map((r) => r.headers['idempotency-key'])).toEqual([key, key]);
    expect(route.requests[0]!.body).toBe('{"amount":42}');
    scope.done();
  });

  test('unlike the fault server, the last step does not repeat: a request past the script finds no match', async () => {
    const scope = nock(ORIGIN);
    nockRoute(scope, 'GET /once', ['200']);
    await axios.get(`${ORIGIN}/once`);
    await expect(axios.get(`${ORIGIN}/once`)).rejects.toThrow(/No match/);
  });
});
