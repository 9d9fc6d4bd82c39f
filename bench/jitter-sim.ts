/**
 * The contention study of "Exponential Backoff And Jitter" (AWS Architecture Blog, 2015), rebuilt on
 * this project's own backoff functions and run in virtual time.
 *
 * N clients start at t = 0. Each reads one versioned row, then sends a conditional write carrying
 * the version it read; the server applies a write only if the version is still current. A client
 * whose write fails sleeps its backoff and reads again. Every hop (request or reply) takes
 * |Normal(10 ms, 2 ms)|. The server handles messages in the order they arrive, so the simulation
 * is a queue of timed events and no real timer runs.
 */
import { decorrelatedJitter, equalJitter, fullJitter, noJitter } from '../lib/policy/backoff';
import { seededRandom } from '../lib/testing/random';

export type Strategy =
  'no backoff' | 'exponential (no jitter)' | 'full jitter' | 'equal jitter' | 'decorrelated jitter';
export const STRATEGIES: readonly Strategy[] = [
  'no backoff',
  'exponential (no jitter)',
  'full jitter',
  'equal jitter',
  'decorrelated jitter',
];

export interface SimSettings {
  baseMs: number;
  capMs: number;
  hopMeanMs: number;
  hopSdMs: number;
}

export const STUDY: SimSettings = { baseMs: 5, capMs: 2000, hopMeanMs: 10, hopSdMs: 2 };

/** Standard normal draws by Box–Muller from `random`; the second value of each pair is kept for the next call. */
export function normal(random: () => number): () => number {
  let spare: number | undefined;
  return () => {
    if (spare !== undefined) {
      const z = spare;
      spare = undefined;
      return z;
    }
    const u1 = 1 - random(); // (0, 1], so the log is finite
    const u2 = random();
    const r = Math.sqrt(-2 * Math.log(u1));
    spare = r * Math.sin(2 * Math.PI * u2);
    return r * Math.cos(2 * Math.PI * u2);
  };
}

/** The sleep after the `attempt`-th failed write (1 on the first failure), in ms. */
export function sleepFor(
  strategy: Strategy,
  attempt: number,
  previousMs: number,
  settings: SimSettings,
  random: () => number,
): number {
  const input = {
    retry: attempt,
    baseDelayMs: settings.baseMs,
    maxDelayMs: settings.capMs,
    previousDelayMs: previousMs,
  };
  switch (strategy) {
    case 'no backoff':
      return 0;
    case 'exponential (no jitter)':
      return noJitter(input);
    case 'full jitter':
      return fullJitter(input, random);
    case 'equal jitter':
      return equalJitter(input, random);
    case 'decorrelated jitter':
      return decorrelatedJitter(input, random);
  }
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

/** A binary min-heap on (at, seq), so events at the same instant keep the order they were made in. */
class EventQueue {
  private readonly heap: SimEvent[] = [];
  private seq = 0;
  get size(): number {
    return this.heap.length;
  }
  push(at: number, kind: Kind, client: number, value = 0): void {
    const heap = this.heap;
    heap.push({ at, seq: this.seq++, kind, client, value });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }
  pop(): SimEvent {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(a: SimEvent, b: SimEvent): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

export interface RunResult {
  /** Conditional writes the server received. */
  calls: number;
  /** When the last client's successful write reply arrived, in ms. */
  completionMs: number;
}

/** One run: `clients` clients contending under `strategy`, drawing all randomness from `seed`. */
export function simulate(strategy: Strategy, clients: number, seed: number, settings: SimSettings = STUDY): RunResult {
  const random = seededRandom(seed);
  const gauss = normal(random);
  const hop = (): number => Math.abs(settings.hopMeanMs + settings.hopSdMs * gauss());
  const attempts = new Array<number>(clients).fill(0);
  const previous = new Array<number>(clients).fill(settings.baseMs);
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
        const attempt = ++attempts[e.client]!;
        const sleep = sleepFor(strategy, attempt, previous[e.client]!, settings, random);
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

export interface PointResult {
  strategy: Strategy;
  clients: number;
  runs: number;
  callsMean: number;
  callsMedian: number;
  completionMeanMs: number;
  completionMedianMs: number;
}

function mid(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * `runs` runs of one (strategy, N) point. Run r uses seed `seedBase + N * 1000 + r` for every
 * strategy, so the strategies face the same network draws where their paths agree.
 */
export function point(strategy: Strategy, clients: number, runs: number, seedBase = 1): PointResult {
  const calls: number[] = [];
  const completion: number[] = [];
  for (let r = 0; r < runs; r++) {
    const result = simulate(strategy, clients, seedBase + clients * 1000 + r);
    calls.push(result.calls);
    completion.push(result.completionMs);
  }
  const mean = (v: number[]): number => v.reduce((a, b) => a + b, 0) / v.length;
  return {
    strategy,
    clients,
    runs,
    callsMean: mean(calls),
    callsMedian: mid(calls),
    completionMeanMs: mean(completion),
    completionMedianMs: mid(completion),
  };
}
