/**
 * The seed's 504 trap, proved with phase 'after' against a deduping server (the testing subpath's
 * idempotent resource): the real POST is processed, its answer dropped for an injected 504, and the
 * retry carries the same Idempotency-Key, so N calls make N payments. The same run against a
 * server that ignores keys makes more than N: the harness sees duplicates when there are some.
 */
import { createIdempotentResource } from '../../lib/testing';
import type { IdempotentResource } from '../../lib/testing';
import { useFaultServer } from '../support/testing/fixture';

const fx = useFaultServer();
const CALLS = 40;

async function payments(resource: IdempotentResource, adapter: 'http' | 'fetch') {
  const server = await fx.start({ routes: { 'POST /v1/payments': { steps: ['201'], resource } } });
  const http = fx.client(
    {
      retries: 8,
      random: () => 0,
      budget: false,
      breaker: false,
      idempotencyKey: { serverDedupes: [server.url] },
      chaos: { seed: 2026, faults: [{ rate: 0.4, status: 504, phase: 'after', match: { method: 'POST' } }] },
    },
    { adapter },
  );
  const results = await Promise.all(
    Array.from({ length: CALLS }, (_, i) => http.post(`${server.url}/v1/payments`, { order: i })),
  );
  const injected = results.reduce((sum, r) => sum + r.config.retryState!.injected!, 0);
  const attempts = results.reduce((sum, r) => sum + r.config.retryState!.attempts, 0);
  return { results, injected, attempts, requests: server.requests.length };
}

describe.each(['http', 'fetch'] as const)('over the %s adapter', (adapter) => {
  test(`${CALLS} POSTs, 504s injected after the server processed them: ${CALLS} payments`, async () => {
    const resource = createIdempotentResource();
    const { results, injected, attempts, requests } = await payments(resource, adapter);
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(injected).toBeGreaterThan(CALLS / 4);
    // Every attempt reached the server: the 504s came after the work was done.
    expect(requests).toBe(attempts);
    expect(resource.created).toBe(CALLS);
    for (const r of results) expect(resource.createdFor(r.config.retryState!.idempotencyKey!)).toBe(1);
    // A call whose first answer was dropped got the stored payment back on its retry.
    const replayed = results.filter((r) => r.headers['idempotent-replayed'] === 'true');
    expect(replayed).toHaveLength(results.filter((r) => r.config.retryState!.injected! > 0).length);
  });

  test('the same run against a server that ignores keys: more payments than calls', async () => {
    const ignoresKeys = createIdempotentResource({ keyHeader: 'X-Not-Read' });
    const { injected } = await payments(ignoresKeys, adapter);
    expect(ignoresKeys.created).toBe(CALLS + injected);
  });
});
