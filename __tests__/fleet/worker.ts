// One worker of the fleet test: waits for "go" on stdin, fires its calls at the always-503 server,
// prints what it saw as one JSON line and exits.
import axios from 'axios';
import type { AxiosError } from 'axios';
import http from 'node:http';
import { RetryBudget, retryPlugin } from '../../lib';
import type { StoreEvent } from '../../lib';
import { redisBudgetStore } from '../../lib/redis';
import { connect, ready } from './redis';
import type { RedisTarget } from './redis';

interface Job {
  redisTarget: RedisTarget;
  url: string;
  calls: number;
  shared: boolean;
  prefix: string;
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2]!) as Job;
  const redis = connect(job.redisTarget);
  await ready(redis);
  const storeEvents: StoreEvent[] = [];
  const budget = new RetryBudget({
    // Eight tsx processes start at once on a small machine: Redis (a Cluster most of all) may then
    // answer slower than the default 100 ms, and the budget would fall back to local (a documented
    // fallback, reported below). This test is about sharing, so it waits longer, and says if it fell back.
    storeTimeoutMs: 2_000,
    onStoreEvent: (event) => void storeEvents.push(event),
    ratio: 0.1,
    minPerSecond: 1,
    windowMs: 10_000,
    ...(job.shared ? { store: redisBudgetStore(redis, { prefix: job.prefix }) } : {}),
  });
  const plugin = retryPlugin({ budget, breaker: false, random: () => 0, retries: 5 });
  const client = axios.create({ httpAgent: new http.Agent({ keepAlive: true }) });
  plugin.install(client);
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  const results = await Promise.allSettled(Array.from({ length: job.calls }, () => client.get(`${job.url}/r`)));
  const attempts = results.reduce(
    (sum, r) => sum + (r.status === 'rejected' ? ((r.reason as AxiosError).config?.retryState?.attempts ?? 0) : 0),
    0,
  );
  await plugin.close();
  (client.defaults.httpAgent as http.Agent).destroy();
  process.stdout.write(
    `${JSON.stringify({ attempts, state: budget.state(), storeEvents: storeEvents.map((e) => e.type) })}\n`,
  );
  redis.disconnect();
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
