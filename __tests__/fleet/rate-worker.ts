// One worker of the rate-limit fleet test: waits for "go" on stdin, runs closed-loop callers at the
// token-bucket server for `runMs`, prints what it saw as one JSON line and exits.
import axios from 'axios';
import type { AxiosAdapter } from 'axios';
import http from 'node:http';
import { retryPlugin } from '../../lib';
import type { StoreEvent } from '../../lib';
import { redisRateLimitStore } from '../../lib/redis';
import { connect, ready } from './redis';
import type { RedisTarget } from './redis';
import { LEFT_AT } from './workers';

interface Job {
  redisTarget: RedisTarget;
  url: string;
  callers: number;
  runMs: number;
  /** Share the limiter through Redis (else each process paces alone). */
  shared: boolean;
  prefix: string;
  /** The store's `timeoutMs` (its default when absent). */
  timeoutMs?: number;
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2]!) as Job;
  const redis = connect(job.redisTarget);
  await ready(redis);
  const storeEvents: StoreEvent[] = [];
  // The default timeout (2 s) is generous: several tsx processes starting at once on a small machine
  // are a slow store, not a gone one (a fallback would be reported here if it happened).
  const store = redisRateLimitStore(redis, {
    prefix: job.prefix,
    ...(job.timeoutMs === undefined ? {} : { timeoutMs: job.timeoutMs }),
    onStoreEvent: (event) => void storeEvents.push(event),
  });
  const plugin = retryPlugin({ breaker: false, ...(job.shared ? { rateLimit: { shared: store } } : {}) });
  // Each attempt says when the plugin handed it to the adapter (its turn come), by this process's
  // clock: a server can judge the pacing rather than the machine, on which attempts sent on time can
  // arrive bunched.
  const send = axios.getAdapter('http');
  const adapter: AxiosAdapter = (config) => {
    config.headers.set(LEFT_AT, String(Date.now()));
    return send(config);
  };
  const client = axios.create({ adapter, httpAgent: new http.Agent({ keepAlive: true }) });
  plugin.install(client);
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  const endAt = Date.now() + job.runMs;
  let ok = 0;
  let failed = 0;
  const caller = async (): Promise<void> => {
    while (Date.now() < endAt) {
      try {
        await client.get(`${job.url}/r`);
        ok++;
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: job.callers }, caller));
  await plugin.close();
  (client.defaults.httpAgent as http.Agent).destroy();
  process.stdout.write(`${JSON.stringify({ ok, failed, storeEvents: storeEvents.map((e) => e.type) })}\n`);
  redis.disconnect();
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
