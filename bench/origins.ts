/**
 * Many origins: a webhook fan-out sends each call to a host of its own. 100,000 calls to distinct
 * origins against the same calls to one origin, through a stub adapter (no sockets: what is
 * measured is the plugin's per-origin bookkeeping), with default options and 10 % of the calls
 * refused once (ECONNREFUSED: never processed, so the POST is retried) before they succeed. Reported: CPU time and wall time per variant, and
 * the ratio distinct ÷ one (the goal in docs/performance.md: at most 1.25).
 *
 * The waits before retries are the default full jitter drawn with `random: () => 0`, so they are 0
 * ms and the run measures work, not sleep.
 *
 *   npm run bench:origins
 *   npx tsx bench/origins.ts --calls 100000 --rounds 3 --concurrency 100
 */
import axios, { AxiosError } from 'axios';
import type { AxiosAdapter, InternalAxiosRequestConfig } from 'axios';
import { fixed, flags, main, pluginUnderTest, table } from './harness';
import { median } from './stats';

const args = flags({ calls: 100_000, rounds: 3, concurrency: 100, 'failing-every': 10 });

/** Answers 200, except that every `failing-every`-th call's first attempt is reset. */
function stubAdapter(): AxiosAdapter {
  const failedOnce = new Set<string>();
  return (config: InternalAxiosRequestConfig) => {
    const url = config.url!;
    const n = Number(url.slice(url.lastIndexOf('/') + 1));
    if (n % args['failing-every'] === 0 && !failedOnce.has(url)) {
      failedOnce.add(url);
      return Promise.reject(new AxiosError('connect ECONNREFUSED', 'ECONNREFUSED', config));
    }
    return Promise.resolve({ data: '', status: 200, statusText: 'OK', headers: {}, config });
  };
}

interface Run {
  cpuMs: number;
  wallMs: number;
  failed: number;
}

async function once(distinct: boolean): Promise<Run> {
  const { retryPlugin } = pluginUnderTest();
  const plugin = retryPlugin({ random: () => 0 });
  const http = axios.create({ adapter: stubAdapter() });
  plugin.install(http);
  const url = (i: number): string =>
    distinct ? `http://hook-${i}.example.test/events/${i}` : `http://hook.example.test/events/${i}`;
  let failed = 0;
  const cpu = process.cpuUsage();
  const startedAt = performance.now();
  for (let from = 0; from < args.calls; from += args.concurrency) {
    const batch: Array<Promise<unknown>> = [];
    for (let i = from; i < Math.min(args.calls, from + args.concurrency); i++) {
      batch.push(http.post(url(i), { i }).catch(() => void failed++));
    }
    await Promise.all(batch);
  }
  const wallMs = performance.now() - startedAt;
  const used = process.cpuUsage(cpu);
  await plugin.close();
  return { cpuMs: (used.user + used.system) / 1000, wallMs, failed };
}

main(
  'origins',
  `${args.calls} calls, ${args.concurrency} at a time, 1 in ${args['failing-every']} failing once, default options, ${args.rounds} rounds`,
  async () => {
    const runs: Record<'one' | 'distinct', Run[]> = { one: [], distinct: [] };
    await once(false); // warm-up: the JIT, axios's first calls
    for (let round = 0; round < args.rounds; round++) {
      // Alternated, so a change in the machine's load falls on both.
      runs.one.push(await once(false));
      runs.distinct.push(await once(true));
    }
    const cpu = (k: 'one' | 'distinct') => median(runs[k].map((r) => r.cpuMs));
    const wall = (k: 'one' | 'distinct') => median(runs[k].map((r) => r.wallMs));
    const rows = (['one', 'distinct'] as const).map((k) => [
      k === 'one' ? 'one origin' : 'distinct origins',
      fixed(cpu(k) / 1000, 2),
      fixed(wall(k) / 1000, 2),
      fixed((cpu(k) * 1000) / args.calls, 1),
      String(runs[k].reduce((s, r) => s + r.failed, 0)),
    ]);
    console.log(table(['variant', 'CPU s (median)', 'wall s (median)', 'CPU µs per call', 'failed calls'], rows));
    console.log(
      `\nratio distinct ÷ one: CPU ${fixed(cpu('distinct') / cpu('one'), 2)}×, wall ${fixed(wall('distinct') / wall('one'), 2)}× (goal ≤ 1.25×)`,
    );
  },
);
