/** The assertions of axios-resilience/testing: they pass on what the plugin did and name every rule a call broke. */
import { assertCreatedOnce, assertRetryWaits, createIdempotentResource, startFaultServer } from '../../lib/testing';
import type { FaultServer } from '../../lib/testing';
import { client, closePlugins } from '../support/helpers';

let server: FaultServer | undefined;
afterEach(async () => {
  await closePlugins();
  await server?.close();
  server = undefined;
});

describe('assertRetryWaits', () => {
  test.each([
    [[0, 199, 399], { baseDelayMs: 100 }],
    [[99], { baseDelayMs: 100, retries: 1 }],
    [[999, 1499, 1499], { baseDelayMs: 1000, maxDelayMs: 1500 }],
    [[5000], { serverWaitsMs: [5000] }],
    [[2000], { maxDelayMs: 2000, serverWaitsMs: [5000] }],
    [[50, 100], { baseDelayMs: 100, jitter: 'equal' }],
    [[100, 200, 400], { baseDelayMs: 100, jitter: 'none' }],
    [[100, 299, 896], { baseDelayMs: 100, jitter: 'decorrelated' }],
  ] as const)('holds for %j under %j', (delaysMs, bounds) => {
    expect(() => assertRetryWaits({ delaysMs: [...delaysMs] }, bounds)).not.toThrow();
  });

  test.each([
    [[100], { baseDelayMs: 100 }, 'delaysMs[0] = 100 is outside [0, 99], the full-jitter backoff of retry 1'],
    [[0, 0, 0], { retries: 2 }, '3 waits, but retries is 2'],
    [[4000], { serverWaitsMs: [5000] }, "delaysMs[0] = 4000 is outside [5000, 30000], the server's 5000 ms"],
    [[31_000], { serverWaitsMs: [60_000] }, 'delaysMs[0] = 31000 is outside [30000, 30000]'],
    [[10, 40], { baseDelayMs: 100, jitter: 'equal' }, 'delaysMs[0] = 10 is outside [50, 99]'],
    [[400, 400], { baseDelayMs: 500, deadlineMs: 700 }, 'the waits add up to 800 ms, past deadlineMs 700'],
  ] as const)('names the rule %j broke under %j', (delaysMs, bounds, message) => {
    expect(() => assertRetryWaits({ delaysMs: [...delaysMs] }, bounds)).toThrow(message);
  });

  test('a call that did not go through the plugin', () => {
    expect(() => assertRetryWaits(undefined)).toThrow(/no retryState/);
  });

  test('holds for the waits a real call chose', async () => {
    server = await startFaultServer({ routes: { 'GET /r': ['503', '503', '503', '200'] } });
    let r = 0.37;
    const { http } = client({ baseDelayMs: 10, random: () => (r = (r * 7.3) % 1) });
    const response = await http.get(`${server.url}/r`);
    expect(response.config.retryState?.delaysMs).toHaveLength(3);
    assertRetryWaits(response.config.retryState, { baseDelayMs: 10 });
  });
});

describe('assertCreatedOnce', () => {
  test('holds when each call created one resource; fails on duplicates, naming the call', async () => {
    const payments = createIdempotentResource();
    server = await startFaultServer({
      routes: { 'POST /v1/payments': { steps: [{ reset: 'after-commit' }, '201'], resource: payments } },
    });
    const deduped = client({ idempotencyKey: { serverDedupes: [server.url] } }).http;
    const once = await deduped.post(`${server.url}/v1/payments`, { order: 1 });
    assertCreatedOnce(payments, [once.config.retryState]);

    // A key the server never reads: the retry after the reset is a second payment.
    const ignored = createIdempotentResource({ keyHeader: 'X-Not-Read' });
    await server.close();
    server = await startFaultServer({
      routes: { 'POST /v1/payments': { steps: [{ reset: 'after-commit' }, '201'], resource: ignored } },
    });
    const careless = client({ idempotencyKey: { serverDedupes: true } }).http;
    const twice = await careless.post(`${server.url}/v1/payments`, { order: 2 });
    expect(() => assertCreatedOnce(ignored, [twice.config.retryState])).toThrow(
      /2 resources created by 1 calls\n- call 0 \(key .*\) created 0/,
    );
  });
});
