/**
 * The exactly-once chaos of __tests__/reliability/exactly-once.test.ts through other clients: the
 * same idempotent server, seeded faults and logical POSTs at concurrency 50, each fault mix run
 * against a server that dedupes keys and against one that ignores them (most internal and partner
 * APIs), where every request it gets is a new payment. Reported per client: requests, payment
 * records, duplicate payments (records beyond the first per call), and how the calls ended.
 *
 * Clients: plain axios (the line no plugin may fall below); axios-retry's default configuration
 * (3 retries, no delay, a POST retried only on a network error, which includes a reset after the
 * server committed); axios-retry "retrying everything" (`retries: 5, retryCondition: () => true`,
 * a common setup, not its default); the plugin with its defaults (a generated key the server is
 * not declared to dedupe), with `serverDedupes: [the server]`, and with `idempotencyKey: false`,
 * all with the test's settings (5 retries, 2–50 ms, breaker and budget off).
 *
 *   npm run bench:chaos
 *   npm run bench:chaos -- --calls 500 --only mixed
 */
import type { AxiosInstance } from 'axios';
import { seededRandom } from '../lib/testing';
// The test-support modules this bench shares with the reliability tests; the one line to change if they move.
import { MIXED_FAULTS, lastErrors, runScenario, tallyPayments } from '../__tests__/support/reliability/chaos-run';
import { bare, fixed, flags, main, resilience, table, withAxiosRetry } from './harness';
import type { Contender } from './harness';

const args = flags({ calls: 2000, only: undefined });
const SEED = 20261201;
const CONCURRENCY = 50;

const faults: Array<{ name: string; mix: typeof MIXED_FAULTS }> = [
  { name: 'mixed', mix: MIXED_FAULTS },
  { name: 'reset-after-commit 35 %', mix: { 'reset-after-commit': 0.35 } },
  { name: 'gateway-timeout-after-commit 35 %', mix: { 'gateway-timeout-after-commit': 0.35 } },
  { name: 'slow-response-after-commit 35 %', mix: { 'slow-response-after-commit': 0.35 } },
];
const scenarios = [false, true]
  .flatMap((ignoresKeys) =>
    faults.map((f) => ({ ...f, ignoresKeys, name: `${f.name}${ignoresKeys ? ', server ignores keys' : ''}` })),
  )
  .filter((s) => args.only === undefined || s.name.startsWith(args.only));

/** The plugin with the test's settings; `keys` says what it is told about the server's dedupe. */
function ours(label: string, keys: 'undeclared' | 'declared' | 'off'): Contender {
  const key = `ours-${keys}`;
  return {
    key,
    label,
    install(http, setup) {
      // A fresh seeded random per run, so every scenario sees the same backoff draws.
      const options = {
        retries: 5,
        baseDelayMs: 2,
        maxDelayMs: 50,
        random: seededRandom(SEED),
        breaker: false,
        budget: false,
      } as const;
      const idempotencyKey =
        keys === 'off' ? false : keys === 'declared' ? { serverDedupes: [setup.baseURL] } : undefined;
      const plugin = resilience(key, label, idempotencyKey === undefined ? options : { ...options, idempotencyKey });
      return plugin.install(http, setup);
    },
  };
}

const clients: Contender[] = [
  bare('plain', 'plain axios'),
  withAxiosRetry('axios-retry', 'axios-retry (default configuration)'),
  withAxiosRetry('retry-everything', 'axios-retry, retries 5 + retryCondition: () => true ("retry everything")', {
    retries: 5,
    retryCondition: () => true,
  }),
  ours('axios-resilience, defaults (key not declared deduped)', 'undeclared'),
  ours('axios-resilience, serverDedupes: [the server]', 'declared'),
  ours('axios-resilience, idempotencyKey: false', 'off'),
];

main('chaos', `${args.calls} logical POSTs per run, concurrency ${CONCURRENCY}, seed ${SEED}`, async () => {
  const rows: string[][] = [];
  for (const scenario of scenarios) {
    for (const client of clients) {
      const options = { seed: SEED, mix: scenario.mix, calls: args.calls, concurrency: CONCURRENCY };
      const report = await runScenario({ ...options, ignoresKeys: scenario.ignoresKeys }, (http: AxiosInstance, url) =>
        client.install(http, { baseURL: url }),
      );
      const t = tallyPayments(report);
      // Progress, and the last errors, on stderr: the table on stdout is what the docs quote.
      console.error(
        `${scenario.name} | ${client.label}: last errors ${JSON.stringify(lastErrors(report))} (${fixed(report.wallMs, 0)} ms)`,
      );
      const counts = [t.requestsReceived, t.records, t.duplicatePayments, t.callsChargedTwice, t.resolved, t.rejected];
      rows.push([scenario.name, client.label, ...[...counts, t.rejectedAfterCommit].map(String)]);
    }
  }
  const columns = ['faults', 'client', 'requests', 'payment records', 'duplicate payments', 'calls charged twice'];
  console.log(table([...columns, 'resolved', 'rejected', 'rejected after commit'], rows, 2));
});
