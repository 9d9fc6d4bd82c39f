/**
 * The example of docs/guides/testing.md, run as a test. The last test checks that the guide's code
 * block is this file's example, word for word (imports aside), so the guide cannot rot.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// guide:start
import axios from 'axios';
import { retryPlugin } from '../../lib';
import { createIdempotentResource, gapsMs, startFaultServer } from '../../lib/testing';

test('a payment survives two 503s and a dropped connection, and is created exactly once', async () => {
  const payments = createIdempotentResource();
  const server = await startFaultServer({
    routes: {
      'POST /v1/payments': { steps: ['503', '503', { reset: 'after-commit' }, '201'], resource: payments },
    },
  });
  // Small delays keep the test fast; the same code runs with the production settings. The
  // resource dedupes keys, so the plugin is told it may repeat a POST that may have been processed.
  const plugin = retryPlugin({ baseDelayMs: 20, maxDelayMs: 1000, idempotencyKey: { serverDedupes: [server.url] } });
  const http = axios.create({ baseURL: server.url });
  plugin.install(http);

  try {
    const started = Date.now();
    const response = await http.post('/v1/payments', { amount: 4200, currency: 'EUR' });
    const elapsed = Date.now() - started;

    // 1. It eventually succeeds, on the fourth attempt.
    expect(response.status).toBe(201);
    expect(response.config.retryState?.attempts).toBe(4);

    // 2. The time spent is within the backoff range. Full jitter waits in [0, 20 * 2^n) ms before
    //    retry n, so three retries wait less than 20 + 40 + 80 = 140 ms in total, and the server saw
    //    each gap at least as long as the wait the plugin chose.
    const { delaysMs } = response.config.retryState!;
    delaysMs.forEach((delay, n) => expect(delay).toBeLessThan(20 * 2 ** n));
    const gaps = gapsMs(server.requestsTo('POST /v1/payments'));
    gaps.forEach((gap, n) => expect(gap).toBeGreaterThanOrEqual(delaysMs[n]! - 1));
    expect(elapsed).toBeGreaterThanOrEqual(delaysMs.reduce((a, b) => a + b, 0) - 1);
    expect(elapsed).toBeLessThan(140 + 2000); // + slack for a slow CI machine

    // 3. Exactly one payment exists: the connection dropped after the server had done the work,
    //    and the retry carried the same Idempotency-Key, so the server replayed instead of charging.
    expect(payments.created).toBe(1);
    const key = response.config.retryState?.idempotencyKey;
    expect(server.requestsTo('POST /v1/payments').map((r) => r.headers['idempotency-key'])).toEqual([
      key,
      key,
      key,
      key,
    ]);
  } finally {
    await plugin.close();
    await server.close();
  }
});
// guide:end

test('docs/guides/testing.md shows this example', () => {
  const own = readFileSync(__filename, 'utf8');
  const example = own.slice(own.indexOf('// guide:start\n') + 15, own.indexOf('// guide:end'));
  const guide = readFileSync(join(__dirname, '../../docs/guides/testing.md'), 'utf8');
  const block = /<!-- example:start -->\s*```ts\n([\s\S]*?)```\s*<!-- example:end -->/.exec(guide);
  expect(block).not.toBeNull();
  const asUserWrites = example
    .replace("from '../../lib/testing'", "from 'axios-resilience/testing'")
    .replace("from '../../lib'", "from 'axios-resilience'");
  expect(block![1]).toBe(asUserWrites);
});
