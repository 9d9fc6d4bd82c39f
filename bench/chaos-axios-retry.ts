/**
 * The exactly-once chaos of __tests__/reliability/exactly-once.test.ts, run against axios-retry
 * for comparison: same idempotent server, same seeded faults, same 2,000 POSTs at concurrency 50.
 * It counts duplicate payments (records beyond the first per logical call).
 *
 *   npm run bench:chaos                # every scenario, 2,000 calls each
 *   npm run bench:chaos -- --calls 500 --only mixed
 *
 * Configurations:
 * - axios-retry, default configuration (`axiosRetry(client)`: 3 retries, no delay,
 *   isNetworkOrIdempotentRequestError — it retries a POST only on a network error, which
 *   includes a connection reset after the server committed).
 * - axios-retry, `{ retries: 5, retryCondition: () => true }`: what a user who "just retries
 *   everything" gets. Labelled as such; it is not axios-retry's default.
 * - axios-resilience with its defaults (a generated key the server is not declared to dedupe),
 *   with `serverDedupes: [the server]`, and with `idempotencyKey: false`; retries 5, baseDelayMs 2,
 *   maxDelayMs 50, breaker and budget off, as in the test.
 * - plain axios, for the line no plugin may fall below.
 *
 * Each scenario runs twice: against a server that dedupes keys, and against one that ignores them
 * (most internal and partner APIs), where every request it gets is a new payment.
 */
import type { AxiosInstance } from 'axios';
import axiosRetry from 'axios-retry';
import { retryPlugin } from '../lib';
import { MIXED_FAULTS, lastErrors, runScenario, tallyPayments } from '../__tests__/support/reliability/chaos-run';
import type { PaymentTally } from '../__tests__/support/reliability/chaos-run';
import { seededRandom } from '../lib/testing/random';
import type { FaultMix } from '../__tests__/support/reliability/idempotent-server';

const SEED = 20261201;
const CONCURRENCY = 50;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}
const CALLS = Number(arg('calls') ?? 2000);
const ONLY = arg('only');

const faults: Array<{ name: string; mix: FaultMix }> = [
  { name: 'mixed', mix: MIXED_FAULTS },
  { name: 'reset-after-commit 35 %', mix: { 'reset-after-commit': 0.35 } },
  { name: 'gateway-timeout-after-commit 35 %', mix: { 'gateway-timeout-after-commit': 0.35 } },
  { name: 'slow-response-after-commit 35 %', mix: { 'slow-response-after-commit': 0.35 } },
];
const scenarios = [false, true].flatMap((ignoresKeys) =>
  faults.map((f) => ({ ...f, ignoresKeys, name: `${f.name}${ignoresKeys ? ', server ignores keys' : ''}` })),
);

type Setup = (client: AxiosInstance, serverUrl: string) => (() => Promise<void> | void) | void;

const resilience =
  (keys: 'undeclared' | 'declared' | 'off'): Setup =>
  (client, serverUrl) => {
    const plugin = retryPlugin({
      retries: 5,
      baseDelayMs: 2,
      maxDelayMs: 50,
      random: seededRandom(SEED),
      breaker: false,
      budget: false,
      ...(keys === 'off'
        ? { idempotencyKey: false as const }
        : keys === 'declared'
          ? { idempotencyKey: { serverDedupes: [serverUrl] } }
          : {}),
    });
    plugin.install(client);
    return () => plugin.close();
  };

const configurations: Array<{ name: string; setup: Setup }> = [
  { name: 'plain axios', setup: () => undefined },
  { name: 'axios-retry (default configuration)', setup: (client) => void axiosRetry(client) },
  {
    name: 'axios-retry, retries 5 + retryCondition: () => true ("retry everything")',
    setup: (client) => void axiosRetry(client, { retries: 5, retryCondition: () => true }),
  },
  { name: 'axios-resilience, defaults (key not declared deduped)', setup: resilience('undeclared') },
  { name: 'axios-resilience, serverDedupes: [the server]', setup: resilience('declared') },
  { name: 'axios-resilience, idempotencyKey: false', setup: resilience('off') },
];

async function main(): Promise<void> {
  const rows: Array<{ scenario: string; configuration: string } & PaymentTally> = [];
  for (const scenario of scenarios) {
    if (ONLY !== undefined && !scenario.name.startsWith(ONLY)) continue;
    for (const configuration of configurations) {
      const report = await runScenario(
        { seed: SEED, mix: scenario.mix, calls: CALLS, concurrency: CONCURRENCY, ignoresKeys: scenario.ignoresKeys },
        configuration.setup,
      );
      const tally = tallyPayments(report);
      rows.push({ scenario: scenario.name, configuration: configuration.name, ...tally });
      console.error(
        `${scenario.name} | ${configuration.name}: ${JSON.stringify(tally)} last errors ${JSON.stringify(lastErrors(report))} (${Math.round(report.wallMs)} ms)`,
      );
    }
  }
  console.log(`\n${CALLS} logical POSTs per run, concurrency ${CONCURRENCY}, seed ${SEED}\n`);
  console.log(
    '| faults | client | requests | payment records | duplicate payments | calls charged twice | resolved | rejected | rejected after commit |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(
      `| ${r.scenario} | ${r.configuration} | ${r.requestsReceived} | ${r.records} | ${r.duplicatePayments} | ${r.callsChargedTwice} | ${r.resolved} | ${r.rejected} | ${r.rejectedAfterCommit} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
