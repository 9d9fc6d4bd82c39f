/**
 * What a retry library does against a rate-limited API (issue 22): a token bucket of `--rate`
 * requests/s with a burst of `--burst` and `--latency-ms` of latency, answering 429 over the limit,
 * four ways (`--hints`: Retry-After: 1, no hint, the IETF RateLimit fields, X-RateLimit-*).
 * Closed-loop callers (`--callers`, one run per count) call for `--run-ms`; contenders one after
 * another, each on a fresh server bucket.
 *
 * Reported per contender: failed calls (share of calls), the 429 share of requests (steady: from
 * `--steady-ms` on, once the first burst is over), goodput (successful calls per second as a share
 * of the limit, steady and overall), p50 and p99 of call latency.
 *
 *   npm run bench:ratelimit
 *   npx tsx bench/ratelimit.ts --run-ms 4000 --callers 20 --hints none --only axios-resilience
 *   npx tsx bench/ratelimit.ts --svg docs/guides/rate-limits.svg
 *   npx tsx bench/ratelimit.ts --only axios-resilience --fleet 4 --fleet-store none   # the fleet without Redis
 *
 * The fleet run (`--fleet`, 4 processes by default) shares its limiters through Redis
 * (`rateLimit: { shared: redisRateLimitStore(redis) }`): on `--redis-port` if given, else on a
 * throwaway `redis-server` the bench starts on a free port (it must be installed) and stops.
 * `--fleet-store none` runs each process with its own limiter, as before the store existed.
 * `--redis-delay-ms 100` puts a TCP proxy (bench/delay-proxy.ts) between the fleet and Redis that
 * delays every chunk 100 ms each way: a Redis that answers 200 ms late.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { writeFileSync } from 'node:fs';
import { delayProxy } from './delay-proxy';
import { percentile } from './stats';
import {
  closedLoop,
  connect,
  forkChild,
  fixed,
  flags,
  keepAliveAgent,
  main,
  only,
  plainAndPeers,
  pause,
  resilience,
  startServer,
  table,
} from './harness';
import type { BenchServer, Contender } from './harness';
import type { BucketHints } from './server';

const args = flags({
  callers: '20,200',
  hints: 'retry-after,none,ratelimit,x-ratelimit',
  'run-ms': 8000,
  'steady-ms': 1500,
  rate: 100,
  burst: 10,
  'latency-ms': 20,
  only: undefined,
  svg: undefined,
  /** Also run ours in this many processes at once against one bucket (0: no fleet run). */
  fleet: 4,
  /** `redis`: the fleet's limiters share one schedule through Redis; `none`: each process paces alone. */
  'fleet-store': 'redis',
  /** A Redis for the fleet's store (0: start a throwaway redis-server). */
  'redis-port': 0,
  /** Slow the fleet's Redis: a proxy delays every chunk this long each way (a round trip 2 × longer). */
  'redis-delay-ms': 0,
  /** Also print each contender's successes per second (to see where the pauses fall). */
  timeline: false,
  /** Run only the fleet (with --only axios-resilience): no single-process row. */
  'fleet-only': false,
  /** Internal: this process is one of the fleet's (spoken to over IPC). */
  child: false,
});

const HINTS: readonly BucketHints[] = ['retry-after', 'none', 'ratelimit', 'x-ratelimit'];
const hintList = args.hints.split(',') as BucketHints[];
for (const hint of hintList) if (!HINTS.includes(hint)) throw new TypeError(`--hints takes ${HINTS.join(', ')}`);
const callerCounts = args.callers.split(',').map(Number);

const contenders = only([...plainAndPeers(), resilience('axios-resilience', 'axios-resilience (defaults)')], args.only);

export interface RunResult {
  calls: number;
  failed: number;
  /** Successful calls per second as a share of the limit: steady (from `--steady-ms`) and overall. */
  goodputSteady: number;
  goodput: number;
  share429: number;
  share429Steady: number;
  p50: number;
  p99: number;
  /** Successes per 100 ms, for the chart. */
  timeline: number[];
  /** The fleet's store events, summed over its processes. */
  storeEvents: string[];
}

/** One table row: a contender's (or the fleet's summed) run. */
function row(label: string, r: RunResult): string[] {
  return [
    label,
    String(r.calls),
    pct(r.failed / Math.max(1, r.calls)),
    pct(r.share429),
    pct(r.share429Steady),
    fixed(r.goodputSteady, 2),
    fixed(r.goodput, 2),
    fixed(r.p50, 0),
    fixed(r.p99, 0),
  ];
}

async function run(server: BenchServer, contender: Contender, callers: number, hints: BucketHints): Promise<RunResult> {
  const startAt = Date.now() + 100;
  const steadyFrom = startAt + args['steady-ms'];
  await server.configure({
    bucket: { ratePerSecond: args.rate, burst: args.burst, hints, steadyFrom },
    latency: { seed: 1, slowShare: 0, slowMs: [0, 0], fastMs: [args['latency-ms'], args['latency-ms']] },
  });
  const counts = await callLoop(contender, server.url, callers, startAt);
  const stats = await server.stats();
  return summary(counts, stats);
}

/** What one process's callers did. */
interface Counts {
  calls: number;
  failed: number;
  ok: number;
  okSteady: number;
  latencies: number[];
  timeline: number[];
  /** The fleet's store events (`store-down`, `store-up`), when shared. */
  storeEvents?: string[];
}

function summary(
  counts: Counts,
  stats: { requests: number; throttled: number; steadyRequests: number; steadyThrottled: number },
): RunResult {
  const seconds = args['run-ms'] / 1000;
  const steadySeconds = (args['run-ms'] - args['steady-ms']) / 1000;
  return {
    calls: counts.calls,
    failed: counts.failed,
    goodput: counts.ok / seconds / args.rate,
    goodputSteady: counts.okSteady / steadySeconds / args.rate,
    share429: stats.throttled / Math.max(1, stats.requests),
    share429Steady: stats.steadyThrottled / Math.max(1, stats.steadyRequests),
    p50: percentile(counts.latencies, 50),
    p99: percentile(counts.latencies, 99),
    timeline: counts.timeline,
    storeEvents: counts.storeEvents ?? [],
  };
}

/** `callers` closed-loop callers from `startAt` for `--run-ms`. */
async function callLoop(contender: Contender, baseURL: string, callers: number, startAt: number): Promise<Counts> {
  const endAt = startAt + args['run-ms'];
  const steadyFrom = startAt + args['steady-ms'];
  const client = connect(contender, { baseURL, agent: keepAliveAgent() });
  const latencies: number[] = [];
  const timeline = new Array<number>(Math.ceil(args['run-ms'] / 100)).fill(0);
  let calls = 0;
  let failed = 0;
  let ok = 0;
  let okSteady = 0;
  while (Date.now() < startAt) await pause(5);
  await closedLoop(client.http, callers, endAt, (succeeded, began, at) => {
    calls++;
    latencies.push(at - began);
    if (!succeeded) failed++;
    else if (at <= endAt) {
      ok++;
      if (at >= steadyFrom) okSteady++;
      const slot = Math.floor((at - startAt) / 100);
      if (slot < timeline.length) timeline[slot]! += 1;
    }
  });
  await client.close();
  return { calls, failed, ok, okSteady, latencies, timeline };
}

/**
 * Ours in `--fleet` processes at once, the callers split between them, against one bucket; the
 * figures are the fleet's sums. With `redisPort` their limiters share one schedule per origin
 * (a fresh prefix per run); without, each process has its own.
 */
async function fleetRun(
  server: BenchServer,
  callers: number,
  hints: BucketHints,
  redisPort: number | undefined,
): Promise<RunResult> {
  const children = Array.from({ length: args.fleet }, () =>
    forkChild(__filename, ['--child', '--run-ms', String(args['run-ms']), '--steady-ms', String(args['steady-ms'])]),
  );
  await Promise.all(children.map((child) => child.reply()));
  const startAt = Date.now() + 300;
  await server.configure({
    bucket: { ratePerSecond: args.rate, burst: args.burst, hints, steadyFrom: startAt + args['steady-ms'] },
    latency: { seed: 1, slowShare: 0, slowMs: [0, 0], fastMs: [args['latency-ms'], args['latency-ms']] },
  });
  const share = Math.ceil(callers / args.fleet);
  const parts = await Promise.all(
    children.map((child) =>
      child.ask<Counts>({ baseURL: server.url, callers: share, startAt, redisPort, prefix: `bench:${startAt}:` }),
    ),
  );
  await Promise.all(children.map((child) => child.close()));
  const stats = await server.stats();
  const sum: Counts = {
    calls: 0,
    failed: 0,
    ok: 0,
    okSteady: 0,
    latencies: [],
    timeline: parts[0]!.timeline.map(() => 0),
    storeEvents: [],
  };
  for (const part of parts) {
    sum.calls += part.calls;
    sum.failed += part.failed;
    sum.ok += part.ok;
    sum.okSteady += part.okSteady;
    sum.latencies.push(...part.latencies);
    sum.storeEvents!.push(...(part.storeEvents ?? []));
    part.timeline.forEach((n, i) => (sum.timeline[i]! += n));
  }
  return summary(sum, stats);
}

interface FleetJob {
  baseURL: string;
  callers: number;
  startAt: number;
  redisPort: number | undefined;
  prefix: string;
}

async function fleetPart(job: FleetJob): Promise<Counts> {
  if (job.redisPort === undefined) {
    return callLoop(
      resilience('axios-resilience', 'axios-resilience (defaults)'),
      job.baseURL,
      job.callers,
      job.startAt,
    );
  }
  const redis = new Redis({
    port: job.redisPort,
    host: '127.0.0.1',
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
  });
  redis.on('error', () => undefined);
  await new Promise<void>((ready) => redis.once('ready', () => ready()));
  const { redisRateLimitStore } = await import('../lib/redis');
  const events: string[] = [];
  const shared = redisRateLimitStore(redis, { prefix: job.prefix, onStoreEvent: (e) => void events.push(e.type) });
  const ours = resilience('axios-resilience', 'axios-resilience (shared)', { rateLimit: { shared } });
  try {
    return { ...(await callLoop(ours, job.baseURL, job.callers, job.startAt)), storeEvents: events };
  } finally {
    redis.disconnect();
  }
}

/** A throwaway redis-server on a free port (no persistence), stopped by the returned function. */
async function startRedis(): Promise<{ port: number; stop: () => void }> {
  const probe = net.createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((done) => probe.close(() => done()));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50 });
  client.on('error', () => undefined);
  const failed = new Promise<never>((_ready, fail) => {
    const why = 'cannot start redis-server (give --redis-port, or --fleet-store none)';
    child.once('error', (error) => fail(new Error(`${why}: ${error.message}`)));
    setTimeout(() => fail(new Error(`${why}: no answer on port ${port} within 5 s`)), 5000).unref();
  });
  try {
    await Promise.race([
      client.connect().catch(() => new Promise<void>((ready) => client.once('ready', () => ready()))),
      failed,
    ]);
  } finally {
    client.disconnect();
  }
  return { port, stop: () => void child.kill('SIGKILL') };
}

if (args.child) {
  process.on('message', (message: FleetJob) => {
    void fleetPart(message).then((counts) => process.send?.(counts));
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.({ ready: true });
}

/** Successes per 100 ms summed per second. */
const seconds = (timeline: number[]): string =>
  Array.from({ length: Math.ceil(timeline.length / 10) }, (_, i) =>
    timeline.slice(10 * i, 10 * i + 10).reduce((a, b) => a + b, 0),
  ).join(' ');

const pct = (x: number): string => `${fixed(100 * x, x < 0.1 ? 1 : 0)} %`;

/** Goodput per 100 ms over time, one line per contender, as an SVG (no dependencies). */
function chart(title: string, series: Array<{ label: string; timeline: number[] }>): string {
  const width = 640;
  const height = 260;
  const left = 40;
  const bottom = 30;
  const colours = ['#999', '#d62728', '#ff7f0e', '#1f77b4'];
  const slots = series[0]?.timeline.length ?? 1;
  const perSlotLimit = args.rate / 10;
  const max = perSlotLimit * 1.5;
  const x = (i: number): number => left + ((width - left - 10) * i) / Math.max(1, slots - 1);
  const y = (v: number): number => height - bottom - ((height - bottom - 20) * Math.min(v, max)) / max;
  const lines = series.map((s, n) => {
    const points = s.timeline.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    return `<polyline fill="none" stroke="${colours[n % colours.length]}" stroke-width="1.5" points="${points}"/>
<text x="${left + 10}" y="${20 + 14 * (n + 1)}" fill="${colours[n % colours.length]}" font-size="11">${s.label}</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${left}" y="14" font-size="12">${title}</text>
<line x1="${left}" y1="${y(perSlotLimit)}" x2="${width - 10}" y2="${y(perSlotLimit)}" stroke="#2ca02c" stroke-dasharray="4 3"/>
<text x="${width - 90}" y="${y(perSlotLimit) - 4}" font-size="10" fill="#2ca02c">the limit</text>
<line x1="${left}" y1="${height - bottom}" x2="${width - 10}" y2="${height - bottom}" stroke="#333"/>
<line x1="${left}" y1="20" x2="${left}" y2="${height - bottom}" stroke="#333"/>
<text x="${left}" y="${height - 8}" font-size="10">0 s</text>
<text x="${width - 40}" y="${height - 8}" font-size="10">${(args['run-ms'] / 1000).toFixed(0)} s</text>
<text x="4" y="${y(perSlotLimit) + 4}" font-size="10">${perSlotLimit}</text>
${lines.join('\n')}
</svg>
`;
}

if (!args.child)
  main(
    'ratelimit',
    `bucket ${args.rate}/s burst ${args.burst}, ${args['latency-ms']} ms latency, ${args['run-ms']} ms per run, steady from ${args['steady-ms']} ms`,
    async () => {
      const fleet = args.fleet > 0 && contenders.some((c) => c.key === 'axios-resilience');
      const shares = fleet && args['fleet-store'] === 'redis';
      const redis = !shares
        ? undefined
        : args['redis-port'] > 0
          ? { port: args['redis-port'], stop: () => undefined }
          : await startRedis();
      const proxy =
        redis !== undefined && args['redis-delay-ms'] > 0
          ? await delayProxy(redis.port, args['redis-delay-ms'])
          : undefined;
      const fleetPort = proxy?.port ?? redis?.port;
      const server = await startServer();
      const charted: Array<{ label: string; timeline: number[] }> = [];
      try {
        for (const hints of hintList) {
          for (const callers of callerCounts) {
            const rows: string[][] = [];
            let fleetEvents: string[] | undefined;
            const perSecond: string[] = [];
            for (const contender of args['fleet-only'] ? [] : contenders) {
              const r = await run(server, contender, callers, hints);
              if (hints === 'none' && callers === callerCounts[callerCounts.length - 1])
                charted.push({ label: contender.label, timeline: r.timeline });
              rows.push(row(contender.label, r));
              if (args.timeline) perSecond.push(`${contender.key}: ${seconds(r.timeline)}`);
            }
            if (fleet) {
              const r = await fleetRun(server, callers, hints, fleetPort);
              const slowed = proxy === undefined ? '' : ` answering ${2 * args['redis-delay-ms']} ms late`;
              const how = redis === undefined ? 'each its own limiter' : `one limiter through Redis${slowed}`;
              rows.push(row(`axios-resilience, ${args.fleet} processes, ${how} (sums)`, r));
              fleetEvents = r.storeEvents;
              if (args.timeline) perSecond.push(`fleet: ${seconds(r.timeline)}`);
            }
            console.log(`\n## 429 with ${hints === 'none' ? 'no hint' : hints}, ${callers} callers\n`);
            console.log(
              table(
                [
                  'contender',
                  'calls',
                  'failed',
                  '429 share',
                  '429 steady',
                  'goodput steady',
                  'goodput',
                  'p50 ms',
                  'p99 ms',
                ],
                rows,
              ),
            );
            if (fleetEvents !== undefined) {
              const down = fleetEvents.filter((e) => e === 'store-down').length;
              console.log(`\nthe fleet's store events: ${down} store-down, ${fleetEvents.length - down} store-up`);
            }
            if (perSecond.length > 0) console.log(`\nsuccesses per second:\n${perSecond.join('\n')}`);
            console.log(
              `load average: ${loadavg()
                .map((l) => l.toFixed(2))
                .join(' ')}`,
            );
          }
        }
      } finally {
        await server.close();
        await proxy?.close();
        redis?.stop();
      }
      if (args.svg !== undefined && charted.length > 0) {
        const callers = callerCounts[callerCounts.length - 1];
        writeFileSync(args.svg, chart(`successes per 100 ms, 429 with no hint, ${callers} callers`, charted));
        console.log(`\nchart written to ${args.svg}`);
      }
    },
  );
