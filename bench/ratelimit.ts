/**
 * What a retry library does against a rate-limited API (docs/guides/rate-limits.md, "Measured"): a
 * limit of `--rate` requests/s (burst `--burst`, `--latency-ms` of latency) answering 429 beyond it,
 * told six ways (`--hints`, server.ts): token buckets that speak only on a refusal and truthful fixed
 * windows that report the quota on every answer. Closed-loop callers (`--callers`, one run per count)
 * call for `--run-ms`; contenders one after another, each on a fresh bucket. Reported: failed calls,
 * the 429 share of requests (steady: from `--steady-ms` on), goodput (successful calls per second as a
 * share of the limit, steady and overall), p50 and p99 of call latency.
 *
 *   npm run bench:ratelimit
 *   npx tsx bench/ratelimit.ts --run-ms 4000 --callers 20 --hints none --only axios-resilience
 *   npx tsx bench/ratelimit.ts --svg docs/guides/rate-limits.svg
 *   npx tsx bench/ratelimit.ts --only axios-resilience --fleet 4 --fleet-store none   # the fleet without Redis
 *
 * The fleet run (`--fleet` processes) shares its limiters through Redis (`redisRateLimitStore`): on
 * `--redis-port`, else on a throwaway `redis-server` the bench starts and stops (it must be installed);
 * `--fleet-store none` gives each process its own limiter. `--redis-delay-ms 100` puts a TCP proxy
 * (__tests__/fleet/delay-proxy.ts) before Redis that delays every chunk 100 ms each way.
 */
import axios from 'axios';
import { Redis } from 'ioredis';
// The throwaway redis-server of the fleet tests; the one line to change if it moves.
import { startRedis } from '../__tests__/fleet/redis';
import { delayProxy } from '../__tests__/fleet/delay-proxy';
import { percentile } from './stats';
import { Calls, connect, forkChild, fixed, flags, loadAverage, main, only, pause } from './harness';
import { plainAndPeers, resilience, serveParent, startServer, table, writeOut } from './harness';
import type { BenchServer, Call, Contender } from './harness';
import { BUCKET_HINTS } from './quotas';
import type { BucketHints } from './quotas';
import type { ServerStats } from './server';

const args = flags({
  callers: '20,200',
  hints: BUCKET_HINTS.join(','),
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

const hintList = args.hints.split(',') as BucketHints[];
for (const hint of hintList) {
  if (!BUCKET_HINTS.includes(hint)) throw new TypeError(`--hints takes ${BUCKET_HINTS.join(', ')}`);
}
const callerCounts = args.callers.split(',').map(Number);

const ours = resilience('axios-resilience', 'axios-resilience (defaults)');
const contenders = only([...plainAndPeers(), ours], args.only);

/** The figures of one row, from the calls a contender (or the whole fleet) made from `startAt`. */
function row(label: string, calls: readonly Call[], stats: ServerStats, startAt: number): string[] {
  const [endAt, steadyFrom] = [startAt + args['run-ms'], startAt + args['steady-ms']];
  const ok = calls.filter((c) => c.ok && c.at <= endAt);
  const steady = ok.filter((c) => c.at >= steadyFrom).length;
  // Successful calls per second as a share of the limit: steady (from `--steady-ms`) and overall.
  const goodput = (n: number, ms: number): string => fixed(n / (ms / 1000) / args.rate, 2);
  const latencies = calls.map((c) => c.ms);
  return [
    label,
    String(calls.length),
    pct(calls.filter((c) => !c.ok).length / Math.max(1, calls.length)),
    pct(stats.refused / Math.max(1, stats.requests)),
    pct(stats.steadyRefused / Math.max(1, stats.steadyRequests)),
    goodput(steady, args['run-ms'] - args['steady-ms']),
    goodput(ok.length, args['run-ms']),
    fixed(percentile(latencies, 50), 0),
    fixed(percentile(latencies, 99), 0),
  ];
}

/** Successes per 100 ms from `startAt`, for the chart and `--timeline`. */
function timeline(calls: readonly Call[], startAt: number): number[] {
  const slots = new Array<number>(Math.ceil(args['run-ms'] / 100)).fill(0);
  for (const c of calls) {
    const slot = Math.floor((c.at - startAt) / 100);
    if (c.ok && c.at <= startAt + args['run-ms'] && slot < slots.length) slots[slot]! += 1;
  }
  return slots;
}

/** A fresh bucket (or fixed windows) of `--rate` from `startAt` on, told as `hints` says. */
async function configure(server: BenchServer, hints: BucketHints, startAt: number): Promise<void> {
  const fixedMs: [number, number] = [args['latency-ms'], args['latency-ms']];
  await server.configure({
    bucket: { ratePerSecond: args.rate, burst: args.burst, hints, steadyFrom: startAt + args['steady-ms'] },
    latency: { seed: 1, slowShare: 0, slowMs: [0, 0], fastMs: fixedMs },
  });
}

/** `callers` closed-loop callers of `contender` from `startAt` for `--run-ms`. */
async function callLoop(contender: Contender, baseURL: string, callers: number, startAt: number): Promise<Call[]> {
  const client = connect(contender, { baseURL });
  const calls = new Calls(client.http);
  while (Date.now() < startAt) await pause(5);
  await calls.loop(callers, startAt + args['run-ms']);
  await client.close();
  return calls.list;
}

/**
 * Ours in `--fleet` processes at once, the callers split between them, against one bucket; the
 * figures are the fleet's sums. With `redisPort` their limiters share one schedule per origin
 * (a fresh prefix per run); without, each process has its own.
 */
async function fleetRun(server: BenchServer, callers: number, hints: BucketHints, redisPort: number | undefined) {
  const argv = ['--child', '--run-ms', String(args['run-ms']), '--steady-ms', String(args['steady-ms'])];
  const children = Array.from({ length: args.fleet }, () => forkChild(__filename, argv));
  await Promise.all(children.map((child) => child.reply()));
  const startAt = Date.now() + 300;
  await configure(server, hints, startAt);
  const job = { baseURL: server.url, callers: Math.ceil(callers / args.fleet), startAt, redisPort };
  const parts = await Promise.all(
    children.map((child) => child.ask<FleetPart>({ ...job, prefix: `bench:${startAt}:` } satisfies FleetJob)),
  );
  await Promise.all(children.map((child) => child.close()));
  const calls = parts.flatMap((p) => p.calls);
  return { calls, stats: await server.stats(), startAt, events: parts.flatMap((p) => p.events) };
}

type FleetJob = { baseURL: string; callers: number; startAt: number; redisPort: number | undefined; prefix: string };
/** What one of the fleet's processes saw: its calls, and its store's events (`store-down`, `store-up`). */
type FleetPart = { calls: Call[]; events: string[] };

const REDIS_OPTIONS = { host: '127.0.0.1', enableOfflineQueue: false, maxRetriesPerRequest: 1 };
async function fleetPart(job: FleetJob): Promise<FleetPart> {
  if (job.redisPort === undefined)
    return { calls: await callLoop(ours, job.baseURL, job.callers, job.startAt), events: [] };
  const redis = new Redis({ port: job.redisPort, ...REDIS_OPTIONS });
  redis.on('error', () => undefined);
  await new Promise<void>((ready) => redis.once('ready', () => ready()));
  const { redisRateLimitStore } = await import('../lib/redis');
  const events: string[] = [];
  const shared = redisRateLimitStore(redis, { prefix: job.prefix, onStoreEvent: (e) => void events.push(e.type) });
  const fleetOurs = resilience('axios-resilience', 'axios-resilience (shared)', { rateLimit: { shared } });
  try {
    return { calls: await callLoop(fleetOurs, job.baseURL, job.callers, job.startAt), events };
  } finally {
    redis.disconnect();
  }
}

// A child loads the plugin and its store before it is ready: loaded on the job, at load 5-7 they took more than the start's
// 300 ms and the first burst fell in the steady window (45-50 % steady 429s in half the 200-caller runs).
async function warmUp(): Promise<void> {
  await import('../lib/redis');
  await ours.install(axios.create(), { baseURL: 'http://127.0.0.1:1' })?.();
}

if (args.child) void warmUp().then(() => serveParent(fleetPart));

/** Successes per 100 ms summed per second. */
const seconds = (timeline: number[]): string =>
  Array.from({ length: Math.ceil(timeline.length / 10) }, (_, i) =>
    timeline.slice(10 * i, 10 * i + 10).reduce((a, b) => a + b, 0),
  ).join(' ');

const pct = (x: number): string => `${fixed(100 * x, x < 0.1 ? 1 : 0)} %`;

/** Goodput per 100 ms over time, one line per contender, as an SVG (no dependencies). */
function chart(title: string, series: Array<{ label: string; timeline: number[] }>): string {
  const [width, height, left, bottom] = [640, 260, 40, 30];
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

const COLUMNS = ['contender', 'calls', 'failed', '429 share', '429 steady', 'goodput steady', 'goodput'];
const settings = `bucket ${args.rate}/s burst ${args.burst}, ${args['latency-ms']} ms latency, ${args['run-ms']} ms per run`;

/** A Redis for the fleet to share: `--redis-port`, or a throwaway one; slowed by the proxy with `--redis-delay-ms`. */
async function fleetRedis(): Promise<{ port: number; stop: () => Promise<void> } | undefined> {
  if (!(args.fleet > 0 && contenders.includes(ours) && args['fleet-store'] === 'redis')) return undefined;
  const redis = args['redis-port'] > 0 ? { port: args['redis-port'], kill: async () => undefined } : await startRedis();
  const proxy = args['redis-delay-ms'] > 0 ? await delayProxy(redis.port, args['redis-delay-ms']) : undefined;
  return { port: proxy?.port ?? redis.port, stop: async () => void (await proxy?.close(), await redis.kill()) };
}

if (!args.child)
  main('ratelimit', `${settings}, steady from ${args['steady-ms']} ms`, async () => {
    const redis = await fleetRedis();
    const server = await startServer();
    const charted: Array<{ label: string; timeline: number[] }> = [];
    try {
      for (const hints of hintList) {
        for (const callers of callerCounts) {
          const rows: string[][] = [];
          const perSecond: string[] = [];
          for (const contender of args['fleet-only'] ? [] : contenders) {
            const startAt = Date.now() + 100;
            await configure(server, hints, startAt);
            const calls = await callLoop(contender, server.url, callers, startAt);
            rows.push(row(contender.label, calls, await server.stats(), startAt));
            const line = timeline(calls, startAt);
            if (hints === 'none' && callers === callerCounts.at(-1))
              charted.push({ label: contender.label, timeline: line });
            if (args.timeline) perSecond.push(`${contender.key}: ${seconds(line)}`);
          }
          let events: string[] | undefined;
          if (args.fleet > 0 && contenders.includes(ours)) {
            const run = await fleetRun(server, callers, hints, redis?.port);
            const slowed = args['redis-delay-ms'] > 0 ? ` answering ${2 * args['redis-delay-ms']} ms late` : '';
            const how = redis === undefined ? 'each its own limiter' : `one limiter through Redis${slowed}`;
            rows.push(
              row(`axios-resilience, ${args.fleet} processes, ${how} (sums)`, run.calls, run.stats, run.startAt),
            );
            events = run.events;
            if (args.timeline) perSecond.push(`fleet: ${seconds(timeline(run.calls, run.startAt))}`);
          }
          console.log(`\n## 429 with ${hints === 'none' ? 'no hint' : hints}, ${callers} callers\n`);
          console.log(table([...COLUMNS, 'p50 ms', 'p99 ms'], rows));
          const down = events?.filter((e) => e === 'store-down').length ?? 0;
          if (events) console.log(`\nthe fleet's store events: ${down} store-down, ${events.length - down} store-up`);
          if (perSecond.length > 0) console.log(`\nsuccesses per second:\n${perSecond.join('\n')}`);
          console.log(`load average: ${loadAverage()}`);
        }
      }
    } finally {
      await server.close();
      await redis?.stop();
    }
    const title = `successes per 100 ms, 429 with no hint, ${callerCounts.at(-1)} callers`;
    if (charted.length > 0) writeOut(args.svg, chart(title, charted), 'chart');
  });
