import axios from 'axios';
import type { AxiosError } from 'axios';
import http from 'node:http';
import { retryPlugin } from '../../lib';
import { startIdempotentServer } from '../support/reliability/idempotent-server';
import type { ChaosServer } from '../support/reliability/idempotent-server';

// The recipe of docs/guides/idempotency-keys.md, "Recovering the calls the guards refused": keyed
// POSTs to a server that does the work and then resets the connection; the calls the budget or the
// breaker stopped carry their key, and re-sending them by hand with it creates no duplicate.

let server: ChaosServer;
afterEach(async () => server.close());

test('200 keyed orders, most reset after commit: the refused ones re-sent by hand with their keys, 0 duplicates', async () => {
  server = await startIdempotentServer({ seed: 23, mix: { 'reset-after-commit': 0.7 }, slowMs: 0 });
  // Defaults, but for a server declared to dedupe and waits drawn at 0 ms (no sleeping in a test).
  const plugin = retryPlugin({ idempotencyKey: { serverDedupes: true }, random: () => 0 });
  const agent = new http.Agent({ keepAlive: true });
  const client = axios.create({ baseURL: server.url, httpAgent: agent });
  plugin.install(client);
  const order = (i: number) => ({ callId: `order-${i}`, amount: 100 + i });

  const results = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => client.post('/payments', order(i))));

  const refused = results.flatMap((result, i) => {
    if (result.status === 'fulfilled') return [];
    const error = result.reason as AxiosError;
    return [{ i, stopReason: error.config!.retryState!.stopReason, key: error.config!.retryState!.idempotencyKey }];
  });
  const reasons = new Set(refused.map((r) => r.stopReason));
  expect(reasons.has('budget-exhausted') || reasons.has('circuit-open')).toBe(true);
  // Every refused call carries its key: it is attached when the call reaches the adapter, before
  // the breaker, so a call refused unsent has one too.
  for (const r of refused) expect(r.key).toMatch(/^[0-9a-f-]{36}$/);

  // The recovery: once the dependency is back, each refused order is re-sent with its own key and
  // body, outside the plugin's guards (retry: false, the header set by hand).
  server.calm();
  const replaysBefore = server.replays;
  const resent = await Promise.all(
    refused.map((r) => client.post('/payments', order(r.i), { retry: false, headers: { 'Idempotency-Key': r.key! } })),
  );
  expect(resent.every((response) => response.status === 201 || response.status === 200)).toBe(true);

  // Every order exists exactly once: the server replayed the ones it had already done.
  const callIds = server.records.map((record) => record.callId);
  expect(new Set(callIds).size).toBe(200);
  expect(callIds).toHaveLength(200);
  expect(server.replays - replaysBefore).toBe(refused.length);
  await plugin.close();
  agent.destroy();
});
