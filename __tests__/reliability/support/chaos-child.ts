/**
 * Runs one chaos scenario through the plugin and prints its ScenarioReport as JSON on stdout.
 * The exactly-once test runs this in a child process: jest's --detectOpenHandles hooks every
 * socket and timer, which slows 10,000 requests so much that healthy ones hit the 200 ms timeout.
 *
 * Input: one JSON argument, { seed, mix, calls, concurrency, idempotencyKey, retries, baseDelayMs, maxDelayMs }.
 */
import { retryPlugin } from '../../../lib';
import { runScenario } from './chaos-run';
import type { ScenarioOptions } from './chaos-run';
import { seededRandom } from '../../../lib/testing/random';

export interface ChildInput extends ScenarioOptions {
  idempotencyKey: boolean;
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as ChildInput;
  const report = await runScenario(input, (client) => {
    const plugin = retryPlugin({
      retries: input.retries,
      baseDelayMs: input.baseDelayMs,
      maxDelayMs: input.maxDelayMs,
      random: seededRandom(input.seed),
      // Off on purpose: this run measures exactly-once, not load shedding.
      breaker: false,
      budget: false,
      ...(input.idempotencyKey ? {} : { idempotencyKey: false as const }),
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
