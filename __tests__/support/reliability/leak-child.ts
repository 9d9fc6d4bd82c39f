/**
 * 100,000 calls through the plugin with a stub adapter, run under `node --expose-gc`: prints the
 * heap retained after GC before and after, and how many of a sample of calls' configs are still
 * reachable (per-call state must not outlive its call).
 *
 * The heap after GC wobbles by a few hundred KB (the JIT makes code and feedback; V8 later
 * flushes bytecode the warm-up alone used, so the heap often shrinks during the run). Two
 * figures are printed: `growth`, from the median of three GCs after a warm-up to the lowest
 * reading at 80k, 90k and 100k calls; and `steadyGrowth`, from the lowest reading at 10k, 20k
 * and 30k calls to that same late reading, which compares like with like across 70,000 calls.
 * A real leak grows steadily and shows in both; a one-off spike does not.
 *
 * Every 10th call fails once with a 503 and is retried (baseDelayMs 0), so the retry path, its
 * wait and its closer registration are exercised too. Budgets and breakers are on (one origin).
 *
 * The breaker's rolling window is 1 s here, not the default 10 s: opossum keeps every call's
 * latency in the current bucket (even with percentiles off) until the bucket rotates out, so it
 * holds the last window's worth of numbers — about 1 MB per 10 s at this test's ~12,000 calls/s.
 * That is bounded, not a leak, but with a 10 s window it would still be filling up while the
 * test measures.
 */
import axios from 'axios';
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { retryPlugin } from '../../../lib';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const CALLS = Number(process.argv[2] ?? 100_000);
const BATCH = 100;

async function settle(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc!();
  }
  return process.memoryUsage().heapUsed;
}

async function median3(): Promise<number> {
  const readings = [await settle(), await settle(), await settle()].sort((a, b) => a - b);
  return readings[1]!;
}

async function main(): Promise<void> {
  let n = 0;
  const client = axios.create({
    adapter: (config: InternalAxiosRequestConfig) => {
      const response: AxiosResponse = { data: 'ok', status: 200, statusText: 'OK', headers: {}, config };
      const attempt = config.retryState?.attempts ?? 1;
      if (n++ % 10 === 0 && attempt === 1) {
        return Promise.reject(
          new axios.AxiosError('unavailable', 'ERR_BAD_RESPONSE', config, undefined, { ...response, status: 503 }),
        );
      }
      return Promise.resolve(response);
    },
  });
  const plugin = retryPlugin({
    baseDelayMs: 0,
    maxDelayMs: 0,
    budget: { minPerSecond: 1e6 },
    breaker: { rollingCountTimeout: 1000 },
    // The stub adapter stands in for a server that dedupes keys, so its failed POSTs are retried.
    idempotencyKey: { serverDedupes: true },
  });
  plugin.install(client);

  const run = async (calls: number, keep?: WeakRef<object>[]) => {
    for (let i = 0; i < calls; i += BATCH) {
      const responses = await Promise.all(
        Array.from({ length: BATCH }, (_, j) =>
          j % 2 === 0 ? client.post('http://api.test/pay', { i, j }) : client.get('http://api.test/item'),
        ),
      );
      if (keep && i % 1000 === 0) keep.push(new WeakRef(responses[0]!.config));
    }
  };

  await run(20_000); // warm up: JIT, axios internals, the one breaker and budget
  const before = await median3();
  const sample: WeakRef<object>[] = [];
  const readings: number[] = [];
  const step = CALLS / 10;
  for (let done = 0; done < CALLS; done += step) {
    await run(step, sample);
    readings.push(await settle());
  }
  const early = Math.min(...readings.slice(0, 3));
  const after = Math.min(...readings.slice(-3));
  const alive = sample.filter((ref) => ref.deref() !== undefined).length;
  await plugin.close();
  process.stdout.write(
    JSON.stringify({
      calls: CALLS,
      before,
      readings,
      growth: after - before,
      steadyGrowth: after - early,
      sampled: sample.length,
      alive,
    }),
  );
}

void main();
