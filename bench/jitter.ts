/**
 * The contention study of "Exponential Backoff And Jitter" (AWS Architecture Blog, 2015), rebuilt
 * on this project's own backoff functions and run in virtual time.
 *
 * N clients start at t = 0. Each reads one versioned row, then sends a conditional write carrying
 * the version it read; the server applies a write only if the version is still current. A client
 * whose write fails sleeps its backoff and reads again. Every hop (request or reply) takes
 * |Normal(10 ms, 2 ms)|; base 5 ms, cap 2 000 ms. The server handles messages in the order they
 * arrive, so the simulation is a queue of timed events and no real timer runs.
 *
 * For N = 10, 20, … 100, `--runs` runs per point; writes `jitter-results.csv` and two charts
 * (vega-lite, rendered by vega) to `--out`, docs/ by default.
 *
 *   npm run bench:jitter
 *   npx tsx bench/jitter.ts --runs 5 --out .bench-tmp
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { decorrelatedJitter, equalJitter, fullJitter, noJitter } from '../lib/policy/backoff';
import type { BackoffInput } from '../lib/policy/backoff';
import { seededRandom } from '../lib/testing';
import { median } from './stats';
import { fixed, flags, main, table } from './harness';

const args = flags({ runs: 100, out: join(__dirname, '..', 'docs') });
const CLIENTS = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
const BASE_MS = 5;
const CAP_MS = 2000;
const HOP_MEAN_MS = 10;
const HOP_SD_MS = 2;

// The plugin's own backoff functions (lib/policy/backoff.ts; not exported since 0.4: no option takes them).
/** The sleep after the `retry`-th failed write (1 on the first), in ms. */
const SLEEP = {
  'no backoff': () => 0,
  'exponential (no jitter)': (input: BackoffInput) => noJitter(input),
  'full jitter': fullJitter,
  'equal jitter': equalJitter,
  'decorrelated jitter': decorrelatedJitter,
} satisfies Record<string, (input: BackoffInput, random: () => number) => number>;
type Strategy = keyof typeof SLEEP;
const STRATEGIES = Object.keys(SLEEP) as Strategy[];

/** Standard normal draws by Box–Muller; the second value of each pair is kept for the next call. */
function normal(random: () => number): () => number {
  let spare: number | undefined;
  return () => {
    if (spare !== undefined) {
      const z = spare;
      spare = undefined;
      return z;
    }
    const r = Math.sqrt(-2 * Math.log(1 - random())); // 1 − random() is in (0, 1], so the log is finite
    const angle = 2 * Math.PI * random();
    spare = r * Math.sin(angle);
    return r * Math.cos(angle);
  };
}

type Kind = 'read-at-server' | 'read-reply' | 'write-at-server' | 'write-reply' | 'wake';
interface SimEvent {
  at: number;
  seq: number;
  kind: Kind;
  client: number;
  /** Version read (read-reply, write-at-server) or write outcome (write-reply: 1 ok, 0 stale). */
  value: number;
}

const before = (a: SimEvent, b: SimEvent): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq);

/** Pending events, latest first, so the next one is popped off the end; events at the same instant keep the order they were made in. */
class EventQueue {
  private readonly events: SimEvent[] = [];
  private seq = 0;

  get size(): number {
    return this.events.length;
  }

  push(at: number, kind: Kind, client: number, value = 0): void {
    const event = { at, seq: this.seq++, kind, client, value };
    let [low, high] = [0, this.events.length];
    while (low < high) {
      const mid = (low + high) >> 1;
      if (before(this.events[mid]!, event)) high = mid;
      else low = mid + 1;
    }
    this.events.splice(low, 0, event);
  }

  pop(): SimEvent {
    return this.events.pop()!;
  }
}

/** One run: the conditional writes the server received, and when the last client's write succeeded. */
function simulate(strategy: Strategy, clients: number, seed: number): { calls: number; completionMs: number } {
  const random = seededRandom(seed);
  const gauss = normal(random);
  const hop = (): number => Math.abs(HOP_MEAN_MS + HOP_SD_MS * gauss());
  const failures = new Array<number>(clients).fill(0);
  const previous = new Array<number>(clients).fill(BASE_MS);
  const queue = new EventQueue();
  let version = 0;
  let calls = 0;
  let completionMs = 0;
  for (let c = 0; c < clients; c++) queue.push(hop(), 'read-at-server', c);
  while (queue.size > 0) {
    const e = queue.pop();
    switch (e.kind) {
      case 'read-at-server':
        queue.push(e.at + hop(), 'read-reply', e.client, version);
        break;
      case 'read-reply':
        queue.push(e.at + hop(), 'write-at-server', e.client, e.value);
        break;
      case 'write-at-server': {
        calls++;
        const ok = e.value === version;
        if (ok) version++;
        queue.push(e.at + hop(), 'write-reply', e.client, ok ? 1 : 0);
        break;
      }
      case 'write-reply': {
        if (e.value === 1) {
          completionMs = Math.max(completionMs, e.at);
          break;
        }
        const input = {
          retry: ++failures[e.client]!,
          baseDelayMs: BASE_MS,
          maxDelayMs: CAP_MS,
          previousDelayMs: previous[e.client]!,
        };
        const sleep = SLEEP[strategy](input, random);
        previous[e.client] = sleep;
        queue.push(e.at + sleep, 'wake', e.client);
        break;
      }
      case 'wake':
        queue.push(e.at + hop(), 'read-at-server', e.client);
        break;
    }
  }
  return { calls, completionMs };
}

interface Point {
  strategy: Strategy;
  clients: number;
  callsMean: number;
  callsMedian: number;
  completionMeanMs: number;
  completionMedianMs: number;
}

/**
 * `args.runs` runs of one (strategy, N) point. Run r uses seed `1 + N × 1000 + r` for every
 * strategy, so the strategies face the same network draws where their paths agree.
 */
function point(strategy: Strategy, clients: number): Point {
  const runs = Array.from({ length: args.runs }, (_, r) => simulate(strategy, clients, 1 + clients * 1000 + r));
  const calls = runs.map((r) => r.calls);
  const completion = runs.map((r) => r.completionMs);
  const mean = (v: number[]): number => v.reduce((a, b) => a + b, 0) / v.length;
  return {
    strategy,
    clients,
    callsMean: mean(calls),
    callsMedian: median(calls),
    completionMeanMs: mean(completion),
    completionMedianMs: median(completion),
  };
}

function csv(points: Point[]): string {
  const lines = points.map((p) => {
    const figures = [p.callsMean, p.callsMedian, p.completionMeanMs, p.completionMedianMs].map((v) => v.toFixed(1));
    return [p.strategy, p.clients, args.runs, ...figures].join(',');
  });
  return (
    ['strategy,clients,runs,calls_mean,calls_median,completion_ms_mean,completion_ms_median', ...lines].join('\n') +
    '\n'
  );
}

type Field = 'callsMean' | 'completionMeanMs';

async function chart(points: Point[], field: Field, title: string, axis: string, log: boolean): Promise<string> {
  // vega is ESM with top-level await (vega-canvas), so it cannot be require()d: load it dynamically.
  const vega = await import('vega');
  const vegaLite = await import('vega-lite');
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 560,
    height: 320,
    background: 'white',
    data: { values: points.map((p) => ({ strategy: p.strategy, clients: p.clients, value: p[field] })) },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'clients', type: 'quantitative', title: 'clients (N)', scale: { domain: [10, 100] } },
      y: { field: 'value', type: 'quantitative', title: axis, ...(log ? { scale: { type: 'log' } } : {}) },
      color: { field: 'strategy', type: 'nominal', sort: [...STRATEGIES], title: 'strategy' },
    },
  };
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

/** The strategy with the lowest `field` at N = `clients`, among `points`. */
function lowest(points: Point[], clients: number, field: Field): Strategy {
  return points.filter((p) => p.clients === clients).reduce((best, p) => (p[field] < best[field] ? p : best)).strategy;
}

const hop = `|N(${HOP_MEAN_MS}, ${HOP_SD_MS})| ms`;
main(
  'jitter',
  `virtual time; base ${BASE_MS} ms, cap ${CAP_MS} ms, hop ${hop}, ${args.runs} runs per point`,
  async () => {
    const points = CLIENTS.flatMap((clients) => STRATEGIES.map((strategy) => point(strategy, clients)));
    mkdirSync(args.out, { recursive: true });
    writeFileSync(join(args.out, 'jitter-results.csv'), csv(points));
    const calls = 'Write calls until every client succeeded (mean of runs)';
    writeFileSync(join(args.out, 'jitter-calls.svg'), await chart(points, 'callsMean', calls, 'write calls', false));
    const time = 'Time until the last client succeeded (mean of runs)';
    const axis = 'completion time (ms, log scale)';
    writeFileSync(join(args.out, 'jitter-completion.svg'), await chart(points, 'completionMeanMs', time, axis, true));

    for (const clients of [50, 100]) {
      const rows = points
        .filter((p) => p.clients === clients)
        .map((p) => [
          p.strategy,
          ...[p.callsMean, p.callsMedian, p.completionMeanMs, p.completionMedianMs].map((v) => fixed(v, 0)),
        ]);
      console.log(`## N = ${clients}\n`);
      console.log(
        table(['strategy', 'calls (mean)', 'calls (median)', 'completion ms (mean)', 'completion ms (median)'], rows),
      );
      console.log(
        `\nfewest calls: ${lowest(points, clients, 'callsMean')}; fastest completion: ${lowest(points, clients, 'completionMeanMs')}\n`,
      );
    }
    const jittered = points.filter((p) => p.strategy !== 'no backoff' && p.strategy !== 'exponential (no jitter)');
    const byN = (field: Field): string => CLIENTS.map((n) => lowest(jittered, n, field)).join(', ');
    console.log(`among the jittered strategies, fewest calls by N ${CLIENTS.join('/')}: ${byN('callsMean')}`);
    console.log(`among the jittered strategies, fastest completion by N: ${byN('completionMeanMs')}`);
    console.log(`\nwrote jitter-results.csv, jitter-calls.svg and jitter-completion.svg to ${args.out}`);
  },
);
