/**
 * Runs one chaos scenario through the plugin and prints its ScenarioReport as JSON on stdout.
 * The exactly-once test runs this in a child process: jest's --detectOpenHandles hooks every
 * socket and timer, which slows 10,000 requests so much that healthy ones hit the 200 ms timeout.
 *
 * Input: one JSON argument, { seed, mix, calls, concurrency, keys, ignoresKeys, retries, baseDelayMs, maxDelayMs }.
 */
import { retryPlugin } from '../../../lib';
import type { RetryPluginOptions } from '../../../lib';
import { runScenario } from './chaos-run';
import type { ScenarioOptions } from './chaos-run';
import { seededRandom } from '../../../lib/policy/random';

/**
 * How the client keys its POSTs: `off` sends none; `undeclared` generates keys but does not say the
 * server dedupes them (the default); the `dedupes-*` forms declare it with each form of
 * `idempotencyKey.serverDedupes`.
 */
export type KeyMode = 'off' | 'undeclared' | 'dedupes-true' | 'dedupes-list' | 'dedupes-predicate';

function keyOption(mode: KeyMode, serverUrl: string): Pick<RetryPluginOptions, 'idempotencyKey'> {
  switch (mode) {
    case 'off':
      return { idempotencyKey: false };
    case 'undeclared':
      return {};
    case 'dedupes-true':
      return { idempotencyKey: { serverDedupes: true } };
    case 'dedupes-list':
      return { idempotencyKey: { serverDedupes: [serverUrl] } };
    case 'dedupes-predicate': {
      const { host } = new URL(serverUrl);
      return { idempotencyKey: { serverDedupes: (origin) => new URL(origin).host === host } };
    }
  }
}

export interface ChildInput extends ScenarioOptions {
  keys: KeyMode;
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as ChildInput;
  const report = await runScenario(input, (client, serverUrl) => {
    const plugin = retryPlugin({
      retries: input.retries,
      baseDelayMs: input.baseDelayMs,
      maxDelayMs: input.maxDelayMs,
      random: seededRandom(input.seed),
      // Off on purpose: this run measures exactly-once, not load shedding.
      breaker: false,
      budget: false,
      // Off too: the chaos server answers 429 at random, not for a rate, and the limiter would pace
      // the run down to a call a second (see docs/guides/rate-limits.md, "Limits of this version").
      rateLimit: false,
      ...keyOption(input.keys, serverUrl),
    });
    plugin.install(client);
    return () => plugin.close();
  });
  process.stdout.write(JSON.stringify(report));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
