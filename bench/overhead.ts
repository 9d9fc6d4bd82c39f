/**
 * The success-path harness: what each retry library costs when nothing fails, measured fairly.
 *
 * Contenders: bare axios; a second, identical bare axios (the A/A control: its interval is the
 * run's noise); axios-resilience with defaults (budget, breaker and keys on); axios-retry and
 * retry-axios with defaults; and, for POST, bare axios with one more header (a fixed
 * `Idempotency-Key`), so the plugin's key can be judged against what axios spends on any header.
 * Each contender has its own axios instance.
 *
 * Three phases, each on its own:
 * - sockets: GET and POST over one keep-alive agent to the node:http server of bench/server.ts,
 *   which runs in a child process so it does not share the client's event loop. A cell is
 *   `--requests` calls at `--concurrency` in flight; result: the ratio of bare's time to the
 *   contender's in the same round (1.0 = as fast as bare; 0.97 = 3 % less throughput).
 * - stub: the same calls through an adapter that resolves at once (no sockets), `--stub-calls`
 *   sequential calls per cell; result: µs per call over bare in the same round (CPU per call).
 * - heap: heap retained after `--heap-calls` stub calls, one child process per contender, method and
 *   run; the median of `--heap-runs` runs.
 *
 * Every round runs one cell per contender and method, in an order shuffled afresh each round with
 * a seeded random (`--seed`), after `--warmup` unrecorded rounds, with a full GC before each cell
 * (`--no-gc` to skip; `--clock cpu` times this process's CPU instead of the wall clock). Reported: the median over rounds
 * of each per-round figure, with a 90 % confidence interval for that median from order statistics
 * (distribution-free; see medianInterval in stats.ts), then the goals of issue #14 against them.
 * `--out file.json|file.csv` writes every cell.
 *
 * `--isolate`: the sockets and stub phases run each contender in `--processes` processes of its
 * own (its own axios, as in a user's program), one cell at a time in the same shuffled rounds; each
 * process is then one sample, and contenders are compared by the Hodges–Lehmann shift between
 * their processes with its Mann–Whitney interval (bench/stats.ts). docs/performance.md, "How to
 * measure", has the rest.
 *
 *   npm run bench:overhead                                   # lib/ through tsx, 100 rounds
 *   npm run build && BENCH_PLUGIN=dist/index.cjs npm run bench:overhead   # the build (what users run)
 *   npm run bench:overhead -- --rounds 5 --heap-calls 0      # a quick look
 *   BENCH_ROUNDS=5 npm run bench                            # every bench, quickly
 *   npm run bench:overhead -- --variants --other before.cjs --out .bench-tmp/run.json
 *   node --cpu-prof --cpu-prof-dir=.bench-tmp/prof --import tsx bench/overhead.ts \
 *     --phases stub --contenders axios-resilience --rounds 200      # a CPU profile target
 */
import { execFileSync, fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parseArgs } from 'node:util';
import axios, { getAdapter } from 'axios';
import type { AxiosAdapter, AxiosInstance, InternalAxiosRequestConfig } from 'axios';
import CircuitBreaker from 'opossum';
import { seededRandom } from '../lib/testing/random';
import type { RetryPluginOptions } from '../lib';
import {
  drive,
  fixed,
  keepAliveAgent,
  loadPlugin,
  machine,
  makeContender,
  median,
  medianInterval,
  plugin,
  pluginCopy,
  pluginSource,
  ratioInterval,
  shiftInterval,
  shuffle,
  startServer,
  stubAdapter,
  table,
} from './common';
import type { ContenderSetup, MedianInterval, PluginModule } from './common';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: process.env.BENCH_ROUNDS ?? '100' },
    warmup: { type: 'string', default: '2' },
    requests: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '32' },
    'stub-calls': { type: 'string', default: '10000' },
    'heap-calls': { type: 'string', default: process.env.BENCH_HEAP_CALLS ?? '100000' },
    'heap-runs': { type: 'string', default: '3' },
    seed: { type: 'string', default: '1' },
    phases: { type: 'string', default: 'sockets,stub,heap' },
    methods: { type: 'string', default: 'get,post' },
    contenders: { type: 'string' },
    variants: { type: 'boolean', default: false },
    other: { type: 'string' },
    clock: { type: 'string', default: 'wall' },
    'no-gc': { type: 'boolean', default: false },
    out: { type: 'string' },
    isolate: { type: 'boolean', default: false },
    processes: { type: 'string', default: '4' },
    'heap-child': { type: 'string' },
    'cell-child': { type: 'string' },
  },
});

type Method = 'get' | 'post';
type Phase = 'sockets' | 'stub' | 'heap';

const ROUNDS = Number(args.rounds);
const WARMUP = Number(args.warmup);
const REQUESTS = Number(args.requests);
const CONCURRENCY = Number(args.concurrency);
const STUB_CALLS = Number(args['stub-calls']);
const HEAP_CALLS = Number(args['heap-calls']);
const HEAP_RUNS = Number(args['heap-runs']);
const SEED = Number(args.seed);
/** `--isolate`: processes per contender (each one a sample of what V8 and the OS make of a process). */
const PROCESSES = args.isolate ? Number(args.processes) : 1;
/** What one figure of a comparison is computed from. */
const SAMPLES = args.isolate ? 'each process its median over rounds, compared over processes' : 'per round';
const PHASES = args.phases.split(',') as Phase[];
const METHODS = args.methods.split(',') as Method[];
/** `wall`: elapsed time (the default, what the goals are stated in); `cpu`: this process's CPU time. */
const CLOCK = args.clock === 'cpu' ? 'cpu' : 'wall';
const timeOf = (c: Cell): number => (CLOCK === 'cpu' ? c.cpuSeconds : c.seconds);

/** The key bare axios sends in the "one more header" row: the length of a uuid, fixed. */
const FIXED_KEY = '3b241101-e2bb-4255-8caf-4136c566a962';
const payload = { amount: 4200, currency: 'EUR', note: 'benchmark' };
const send: Record<Method, (http: AxiosInstance) => Promise<unknown>> = {
  get: (http) => http.get('/items/1'),
  post: (http) => http.post('/payments', payload),
};

interface Client {
  http: AxiosInstance;
  close(): Promise<void>;
}

interface Entry {
  /** Short name for `--contenders`, the raw output and the heap child. */
  key: string;
  label: string;
  methods: readonly Method[];
  make(setup: ContenderSetup): Client;
}

const both: readonly Method[] = ['get', 'post'];

function withPlugin(lib: PluginModule, options: RetryPluginOptions, perRequest?: false) {
  return (setup: ContenderSetup): Client => {
    const http = makeContender('bare axios', setup).http;
    const instance = lib.retryPlugin(options);
    const eject = instance.install(http);
    if (perRequest === false) http.defaults.retry = false;
    return {
      http,
      close: async () => {
        eject();
        await instance.close();
      },
    };
  };
}

/** A bare opossum breaker (the plugin's settings) around the adapter, without the plugin. */
function opossumAroundAdapter(setup: ContenderSetup): Client {
  const http = makeContender('bare axios', setup).http;
  const breaker = new CircuitBreaker((adapter: AxiosAdapter, config: InternalAxiosRequestConfig) => adapter(config), {
    timeout: false,
    rollingPercentilesEnabled: false,
    enableSnapshots: false,
  });
  http.interceptors.request.use(
    (config) => {
      const base = getAdapter(config.adapter ?? axios.defaults.adapter, config);
      config.adapter = (attempt) => breaker.fire(base, attempt) as ReturnType<AxiosAdapter>;
      return config;
    },
    undefined,
    { synchronous: true },
  );
  return {
    http,
    close: () => {
      breaker.shutdown();
      return Promise.resolve();
    },
  };
}

/** `--other a.cjs,b.cjs`: builds measured in the same rounds as the plugin under test. */
function otherBuilds(): string[] {
  return args.other === undefined ? [] : args.other.split(',').filter((path) => path !== '');
}

/** `other` for the first `--other` build, `other2`, `other3`, … for the rest. */
function otherKey(index: number): string {
  return index === 0 ? 'other' : `other${index + 1}`;
}

function entries(): Entry[] {
  const list: Entry[] = [
    { key: 'bare', label: 'bare axios', methods: both, make: (s) => makeContender('bare axios', s) },
    { key: 'bare-aa', label: 'bare axios (A/A copy)', methods: both, make: (s) => makeContender('bare axios', s) },
    {
      key: 'bare-header',
      label: 'bare axios + 1 header',
      methods: ['post'],
      make: (s) => {
        const c = makeContender('bare axios', s);
        c.http.defaults.headers.post['Idempotency-Key'] = FIXED_KEY;
        return c;
      },
    },
    { key: 'axios-resilience', label: 'axios-resilience', methods: both, make: withPlugin(plugin, {}) },
    // Isolated, the copy is the plugin in a second process of its own; in one process, a build
    // evaluated twice (lib/'s modules would be shared).
    ...(pluginCopy === undefined && !args.isolate
      ? []
      : [
          {
            key: 'ours-aa',
            label: 'axios-resilience (A/A copy)',
            methods: both,
            make: withPlugin(args.isolate ? plugin : pluginCopy!, {}),
          },
        ]),
    { key: 'axios-retry', label: 'axios-retry', methods: both, make: (s) => makeContender('axios-retry', s) },
    { key: 'retry-axios', label: 'retry-axios', methods: both, make: (s) => makeContender('retry-axios', s) },
  ];
  const variants: Array<[string, string, RetryPluginOptions, false?]> = [
    ['no-breaker', 'breaker: false', { breaker: false }],
    ['no-budget', 'budget: false', { budget: false }],
    ['no-budget-breaker', 'budget: false, breaker: false', { budget: false, breaker: false }],
    ['floor', 'installed, retry: false per request', {}, false],
  ];
  if (args.variants) {
    for (const [key, label, options, perRequest] of variants) {
      list.push({
        key,
        label: `axios-resilience, ${label}`,
        methods: both,
        make: withPlugin(plugin, options, perRequest),
      });
    }
    list.push({
      key: 'opossum',
      label: 'opossum around adapter (no plugin)',
      methods: both,
      make: opossumAroundAdapter,
    });
  }
  for (const [index, path] of otherBuilds().entries()) {
    const other = loadPlugin(path);
    const key = otherKey(index);
    list.push({ key, label: `other build ${path}`, methods: both, make: withPlugin(other, {}) });
    if (args.variants) {
      for (const [variant, label, options, perRequest] of variants) {
        list.push({
          key: `${key}-${variant}`,
          label: `other build ${path}, ${label}`,
          methods: both,
          make: withPlugin(other, options, perRequest),
        });
      }
    }
  }
  const only = args.contenders?.split(',');
  return list.filter((e) => e.key === 'bare' || only === undefined || only.includes(e.key));
}

/** One timed cell: seconds, in this round, for one contender and one method. */
interface Cell {
  phase: 'sockets' | 'stub';
  method: Method;
  round: number;
  position: number;
  contender: string;
  /** Which of the contender's processes ran the cell (`--isolate`), else 0. */
  process: number;
  calls: number;
  /** Wall-clock time of the cell. */
  seconds: number;
  /** CPU time of this process (user + system, all its threads) during the cell. */
  cpuSeconds: number;
}

/** A full collection between cells, so no cell pays for the garbage of the one before it. */
function collector(): () => void {
  if (args['no-gc']) return () => undefined;
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  return gc;
}

/** One cell's times. */
interface Timing {
  seconds: number;
  cpuSeconds: number;
}

/** Times one cell in this process: `calls` calls at `concurrency` in flight, after a full GC. */
async function timeCell(
  http: AxiosInstance,
  method: Method,
  calls: number,
  concurrency: number,
  gc: () => void,
): Promise<Timing> {
  gc();
  const cpu = process.cpuUsage();
  const seconds = await drive(calls, concurrency, () => send[method](http));
  const used = process.cpuUsage(cpu);
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** Who runs a phase's cells: this process, or one child per contender and process (`--isolate`). */
interface CellRunner {
  run(contender: number, process: number, method: Method): Promise<Timing>;
  close(): Promise<void>;
}

function inProcess(list: Entry[], setup: ContenderSetup, calls: number, concurrency: number): CellRunner {
  const clients = list.map((e) => e.make(setup));
  const gc = collector();
  return {
    run: (i, _p, method) => timeCell(clients[i]!.http, method, calls, concurrency, gc),
    close: async () => {
      for (const c of clients) await c.close();
    },
  };
}

/**
 * `--isolate`: each contender runs in `PROCESSES` processes of its own, with its own axios, as in a
 * user's program (in one process, every contender's configs and adapters pass through the same
 * axios functions, and what V8 makes of those depends on the mix). Only one child runs a cell at a
 * time; the others wait.
 */
async function inChildren(
  list: Entry[],
  phase: 'sockets' | 'stub',
  serverUrl: string | undefined,
  calls: number,
  concurrency: number,
): Promise<CellRunner> {
  const children: CellChild[][] = [];
  const close = async (): Promise<void> => {
    for (const c of children.flat()) await c.close();
  };
  try {
    for (const e of list) {
      const mine: CellChild[] = [];
      children.push(mine);
      for (let p = 0; p < PROCESSES; p++) mine.push(await startCellChild(e.key, phase, serverUrl));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { run: (i, p, method) => children[i]![p]!.run(method, calls, concurrency), close };
}

/**
 * Every round runs one cell of every contender, process and method, in an order shuffled afresh,
 * after `WARMUP` unrecorded rounds.
 */
async function runRounds(
  phase: 'sockets' | 'stub',
  list: Entry[],
  runner: CellRunner,
  calls: number,
  random: () => number,
): Promise<Cell[]> {
  const cells: Array<{ i: number; p: number; method: Method }> = [];
  for (const method of METHODS) {
    for (const [i, e] of list.entries()) {
      if (e.methods.includes(method)) for (let p = 0; p < PROCESSES; p++) cells.push({ i, p, method });
    }
  }
  const out: Cell[] = [];
  try {
    for (let round = -WARMUP; round < ROUNDS; round++) {
      for (const [position, { i, p, method }] of shuffle(cells, random).entries()) {
        const { seconds, cpuSeconds } = await runner.run(i, p, method);
        if (round >= 0)
          out.push({ phase, method, round, position, contender: list[i]!.key, process: p, calls, seconds, cpuSeconds });
      }
    }
  } finally {
    await runner.close();
  }
  return out;
}

/** The flags a child process needs to build the same contender list. */
function childArgs(): string[] {
  return [
    ...(args.variants ? ['--variants'] : []),
    ...(args.other !== undefined ? ['--other', args.other] : []),
    ...(args['no-gc'] ? ['--no-gc'] : []),
  ];
}

function entryNamed(key: string): Entry {
  const entry = entries().find((e) => e.key === key);
  if (entry === undefined) throw new Error(`unknown contender ${key}`);
  return entry;
}

/** Calls through an adapter that answers at once. */
const STUB_SETUP: ContenderSetup = { baseURL: 'http://stub.local', adapter: stubAdapter };

/** What a cell child is told (run one cell, or stop) and what it answers. */
type CellOrder = { type: 'cell'; method: Method; calls: number; concurrency: number } | { type: 'close' };
type CellReply = { type: 'ready' } | ({ type: 'done' } & Timing);

/** One contender in a process of its own (`--isolate`): runs a cell whenever the parent asks. */
interface CellChild {
  run(method: Method, calls: number, concurrency: number): Promise<Timing>;
  close(): Promise<void>;
}

function startCellChild(key: string, phase: 'sockets' | 'stub', serverUrl: string | undefined): Promise<CellChild> {
  // tsx's loader comes along in execArgv, as for the server.
  const child: ChildProcess = fork(__filename, ['--cell-child', `${key},${phase},${serverUrl ?? ''}`, ...childArgs()], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const next = (): Promise<CellReply> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`cell child ${key} exited with ${String(code)}`));
      child.once('exit', onExit);
      child.once('message', (reply: CellReply) => {
        child.off('exit', onExit);
        resolve(reply);
      });
    });
  const order = (message: CellOrder): void => {
    child.send(message);
  };
  return next().then(() => ({
    async run(method, calls, concurrency) {
      const reply = next();
      order({ type: 'cell', method, calls, concurrency });
      const done = await reply;
      if (done.type !== 'done') throw new Error(`cell child ${key} answered ${done.type}`);
      return { seconds: done.seconds, cpuSeconds: done.cpuSeconds };
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        order({ type: 'close' });
      }),
  }));
}

/** The child side of `--isolate`: one contender, one cell per order from the parent. */
async function cellChild(spec: string): Promise<void> {
  const [key, phase, serverUrl] = spec.split(',') as [string, 'sockets' | 'stub', string];
  const agent = phase === 'sockets' ? keepAliveAgent() : undefined;
  const client = entryNamed(key).make(agent === undefined ? STUB_SETUP : { baseURL: serverUrl, agent });
  const gc = collector();
  const reply = (message: CellReply): void => {
    process.send!(message);
  };
  process.on('message', (message: CellOrder) => {
    if (message.type === 'close') {
      void client.close().then(() => {
        agent?.destroy();
        process.disconnect();
      });
      return;
    }
    void timeCell(client.http, message.method, message.calls, message.concurrency, gc).then((timing) =>
      reply({ type: 'done', ...timing }),
    );
  });
  reply({ type: 'ready' });
}

/** Per round: `f(contender's seconds, reference's seconds)`, for the rounds both ran in. */
function perRound(
  cells: Cell[],
  method: Method,
  key: string,
  reference: string,
  f: (mine: number, ref: number) => number,
): number[] {
  const mine = new Map<number, number>();
  const ref = new Map<number, number>();
  for (const c of cells) {
    if (c.method !== method) continue;
    if (c.contender === key) mine.set(c.round, timeOf(c));
    if (c.contender === reference) ref.set(c.round, timeOf(c));
  }
  const values: number[] = [];
  for (const [round, s] of mine) {
    const r = ref.get(round);
    if (r !== undefined) values.push(f(s, r));
  }
  return values;
}

const throughputRatio = (mine: number, ref: number): number => ref / mine;
const microsOver =
  (calls: number) =>
  (mine: number, ref: number): number =>
    ((mine - ref) / calls) * 1e6;

/** A contender against a reference: its throughput ratio, or the µs per call it adds. */
type Measure = 'throughput' | 'micros';

/** Each process of the contenders `keys`: the median over rounds of its cells' times. */
function perProcess(cells: Cell[], method: Method, keys: string | readonly string[]): number[] {
  const wanted: readonly string[] = typeof keys === 'string' ? [keys] : keys;
  const byProcess = new Map<string, number[]>();
  for (const c of cells) {
    if (c.method !== method || !wanted.includes(c.contender)) continue;
    const id = `${c.contender}#${c.process}`;
    let times = byProcess.get(id);
    if (times === undefined) byProcess.set(id, (times = []));
    times.push(timeOf(c));
  }
  return [...byProcess.values()].map(median);
}

/**
 * `key` against `reference`. In one process: the median over rounds of the figure of each round,
 * with its order-statistic interval. Isolated (`--isolate`): each process is one sample (its rounds
 * share its JIT and memory layout, so they are not independent of each other), and the estimate
 * is the Hodges–Lehmann shift between the two sets of processes, with its Mann–Whitney interval.
 */
function compare(
  cells: Cell[],
  method: Method,
  key: string | readonly string[],
  reference: string | readonly string[],
  measure: Measure,
): MedianInterval {
  const calls = cells[0]?.calls ?? 1;
  if (!args.isolate) {
    if (typeof key !== 'string' || typeof reference !== 'string') throw new Error('pooled contenders need --isolate');
    return medianInterval(
      perRound(cells, method, key, reference, measure === 'throughput' ? throughputRatio : microsOver(calls)),
    );
  }
  const mine = perProcess(cells, method, key);
  const ref = perProcess(cells, method, reference);
  if (measure === 'throughput')
    return ratioInterval(
      mine.map((t) => 1 / t),
      ref.map((t) => 1 / t),
    );
  const perCall = (t: number): number => (t / calls) * 1e6;
  return shiftInterval(mine.map(perCall), ref.map(perCall));
}

function formatInterval(m: MedianInterval, digits: number): string {
  return `${fixed(m.median, digits)} [${fixed(m.low, digits)}, ${fixed(m.high, digits)}]`;
}

function has(e: Entry, method: Method): boolean {
  return METHODS.includes(method) && e.methods.includes(method);
}

function socketTable(list: Entry[], cells: Cell[]): string {
  const rows = list
    .filter((e) => METHODS.some((m) => e.methods.includes(m)))
    .map((e) => {
      const row = [e.label];
      for (const method of METHODS) {
        if (!has(e, method)) {
          row.push('–', '–');
          continue;
        }
        const secs = cells.filter((c) => c.method === method && c.contender === e.key).map(timeOf);
        row.push(fixed(median(secs.map((s) => REQUESTS / s)), 0));
        row.push(
          e.key === 'bare'
            ? '1.000 (reference)'
            : formatInterval(compare(cells, method, e.key, 'bare', 'throughput'), 3),
        );
      }
      return row;
    });
  const headers = ['contender'];
  for (const method of METHODS)
    headers.push(
      `${method.toUpperCase()} ${CLOCK === 'cpu' ? 'req/CPU-s' : 'req/s'}`,
      `${method.toUpperCase()} ratio to bare [90 % CI]`,
    );
  return table(headers, rows);
}

/** `--isolate`: each process's median over rounds, so the spread between processes is in view. */
function processTable(list: Entry[], cells: Cell[], unit: (seconds: number) => string): string {
  const rows = list.map((e) => [
    e.label,
    ...METHODS.map((method) => (has(e, method) ? perProcess(cells, method, e.key).map(unit).join(' ') : '–')),
  ]);
  return table(['contender', ...METHODS.map((m) => `${m.toUpperCase()}, each process`)], rows);
}

function stubTable(list: Entry[], cells: Cell[]): string {
  const header = list.some((e) => e.key === 'bare-header') && METHODS.includes('post');
  const rows = list
    .filter((e) => METHODS.some((m) => e.methods.includes(m)))
    .map((e) => {
      const row = [e.label];
      for (const method of METHODS) {
        if (!has(e, method)) {
          row.push('–', '–');
        } else {
          const secs = cells.filter((c) => c.method === method && c.contender === e.key).map(timeOf);
          row.push(fixed(median(secs.map((s) => (s / STUB_CALLS) * 1e6)), 2));
          row.push(
            e.key === 'bare' ? '0.00 (reference)' : formatInterval(compare(cells, method, e.key, 'bare', 'micros'), 2),
          );
        }
        if (method === 'post' && header) {
          row.push(
            has(e, 'post') && e.key !== 'bare-header' && e.key !== 'bare' && e.key !== 'bare-aa'
              ? formatInterval(compare(cells, 'post', e.key, 'bare-header', 'micros'), 2)
              : '–',
          );
        }
      }
      return row;
    });
  const headers = ['contender'];
  for (const method of METHODS) {
    headers.push(`${method.toUpperCase()} µs/call`, `${method.toUpperCase()} µs over bare [90 % CI]`);
    if (method === 'post' && header) headers.push('POST µs over bare + 1 header [90 % CI]');
  }
  return table(headers, rows);
}

interface HeapCell {
  phase: 'heap';
  method: Method;
  run: number;
  contender: string;
  calls: number;
  bytes: number;
}

/** Heap growth over `HEAP_CALLS` stub calls, measured in a child process (see heapChild). */
function heapCell(key: string, method: Method): number {
  const out = execFileSync(
    process.execPath,
    [
      '--expose-gc',
      // V8 may otherwise free the bytecode of start-up code mid-run: a possible source of heap noise.
      '--no-flush-bytecode',
      '--import',
      'tsx',
      __filename,
      '--heap-child',
      `${key},${method},${HEAP_CALLS}`,
      ...childArgs(),
    ],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  return (JSON.parse(out.trim().split('\n').pop()!) as { bytes: number }).bytes;
}

async function heapChild(spec: string): Promise<void> {
  const [key, method, callsText] = spec.split(',') as [string, Method, string];
  const calls = Number(callsText);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  const c = entryNamed(key).make(STUB_SETUP);
  const yieldOnce = (): Promise<void> => new Promise((done) => setImmediate(done));
  // Stub calls never leave the microtask queue; yielding every 1000 calls lets timers run, as
  // they would in a real program (opossum's rolling window rotates on one).
  const run = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) {
      await send[method](c.http);
      if (i % 1000 === 999) await yieldOnce();
    }
  };
  // A short pause before reading: without it about one process in eight read ~200 kB less after the
  // run than before it (something from start-up still being freed).
  const settled = async (): Promise<number> => {
    await new Promise((done) => setTimeout(done, 100));
    gc();
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  await run(5000);
  const before = await settled();
  await run(calls);
  const after = await settled();
  await c.close();
  process.stdout.write(JSON.stringify({ bytes: after - before }) + '\n');
}

function heapTable(list: Entry[], cells: HeapCell[]): string {
  const rows = list
    .filter((e) => e.key !== 'bare-header')
    .map((e) => [
      e.label,
      ...METHODS.map((method) =>
        fixed(median(cells.filter((c) => c.contender === e.key && c.method === method).map((c) => c.bytes / 1000)), 1),
      ),
    ]);
  return table(['contender', ...METHODS.map((m) => `${m.toUpperCase()} kB retained`)], rows);
}

/** The issue's goals against this run: the median, its interval, and a verdict. */
function goals(socketCells: Cell[], stubCells: Cell[], heapCells: HeapCell[]): string[] {
  const lines: string[] = [];
  const verdict = (m: MedianInterval, ok: (v: number) => boolean): string =>
    !Number.isFinite(m.low) || !Number.isFinite(m.high)
      ? 'no 90 % interval from this few samples'
      : ok(m.low) && ok(m.high)
        ? 'met'
        : !ok(m.low) && !ok(m.high)
          ? 'missed'
          : `${ok(m.median) ? 'met' : 'missed'} at the median, within noise`;
  // "Not below a peer beyond the interval": met while the interval reaches 1.
  const notBelow = (m: MedianInterval): string =>
    !Number.isFinite(m.high) ? 'no 90 % interval from this few samples' : m.high >= 1 ? 'met' : 'missed';
  const aa = (cells: Cell[], method: Method, f: Measure, digits: number, unit = ''): string => {
    const control = compare(cells, method, 'bare-aa', 'bare', f);
    return Number.isFinite(control.median) ? formatInterval(control, digits) + unit : 'not run';
  };
  for (const method of METHODS) {
    const M = method.toUpperCase();
    if (socketCells.length > 0) {
      const ours = compare(socketCells, method, 'axios-resilience', 'bare', 'throughput');
      lines.push(
        `sockets ${M} ≥ 0.97 of bare: ${formatInterval(ours, 3)} → ${verdict(ours, (v) => v >= 0.97)}  (A/A ${aa(socketCells, method, 'throughput', 3)})`,
      );
      const copy = compare(socketCells, method, 'ours-aa', 'bare', 'throughput');
      if (Number.isFinite(copy.median)) {
        lines.push(`sockets ${M}, the plugin's A/A copy: ${formatInterval(copy, 3)} of bare`);
      }
      if (args.isolate && Number.isFinite(copy.median)) {
        // Isolated, the copy is just more processes of the plugin, and bare's A/A more of bare's.
        const pooled = compare(socketCells, method, ['axios-resilience', 'ours-aa'], ['bare', 'bare-aa'], 'throughput');
        lines.push(
          `sockets ${M} ≥ 0.97 of bare, pooled (${2 * PROCESSES} processes each): ${formatInterval(pooled, 3)} → ${verdict(pooled, (v) => v >= 0.97)}`,
        );
      }
      for (const peer of ['axios-retry', 'retry-axios']) {
        const vs = compare(socketCells, method, 'axios-resilience', peer, 'throughput');
        if (Number.isFinite(vs.median)) {
          lines.push(
            `sockets ${M} not below ${peer} beyond the interval: ours ÷ theirs ${formatInterval(vs, 3)} → ${notBelow(vs)}`,
          );
        }
      }
    }
    if (stubCells.length > 0) {
      const withHeader = method === 'post' && stubCells.some((c) => c.contender === 'bare-header');
      const reference = withHeader ? 'bare-header' : 'bare';
      const ours = compare(stubCells, method, 'axios-resilience', reference, 'micros');
      const what = withHeader ? 'over bare + 1 header' : 'over bare';
      lines.push(
        `stub ${M} ≤ +1.0 µs ${what}: ${formatInterval(ours, 2)} µs → ${verdict(ours, (v) => v <= 1)}  (A/A ${aa(stubCells, method, 'micros', 2, ' µs')})`,
      );
      const copy = compare(stubCells, method, 'ours-aa', reference, 'micros');
      if (Number.isFinite(copy.median)) {
        lines.push(`stub ${M}, the plugin's A/A copy: ${formatInterval(copy, 2)} µs ${what}`);
      }
      if (withHeader) {
        const header = compare(stubCells, 'post', 'bare-header', 'bare', 'micros');
        lines.push(`stub POST, what one more header costs bare axios: ${formatInterval(header, 2)} µs`);
      }
    }
    for (const [index, path] of otherBuilds().entries()) {
      const key = otherKey(index);
      if (socketCells.length > 0) {
        const vs = compare(socketCells, method, key, 'axios-resilience', 'throughput');
        lines.push(`sockets ${M}, ${path} ÷ this build: ${formatInterval(vs, 3)}`);
      }
      if (stubCells.length > 0) {
        const vs = compare(stubCells, method, key, 'axios-resilience', 'micros');
        lines.push(`stub ${M}, ${path} minus this build: ${formatInterval(vs, 2)} µs`);
      }
    }
    if (heapCells.length > 0) {
      const ours = median(
        heapCells.filter((c) => c.contender === 'axios-resilience' && c.method === method).map((c) => c.bytes),
      );
      lines.push(
        `heap ${M} < 100 KB after ${HEAP_CALLS} calls: ${fixed(ours / 1000, 1)} kB → ${ours < 100_000 ? 'met' : 'missed'}`,
      );
    }
  }
  return lines;
}

function writeRaw(path: string, meta: object, cells: Array<Cell | HeapCell>): void {
  if (path.endsWith('.csv')) {
    const lines = ['phase,method,round,position,contender,calls,seconds,cpu_seconds,bytes'];
    for (const c of cells) {
      lines.push(
        c.phase === 'heap'
          ? `heap,${c.method},${c.run},,${c.contender},${c.calls},,,${c.bytes}`
          : `${c.phase},${c.method},${c.round},${c.position},${c.contender},${c.calls},${c.seconds},${c.cpuSeconds},`,
      );
    }
    writeFileSync(path, lines.join('\n') + '\n');
  } else {
    writeFileSync(path, JSON.stringify({ meta, cells }, null, 1) + '\n');
  }
}

async function main(): Promise<void> {
  if (args['heap-child'] !== undefined) return heapChild(args['heap-child']);
  if (args['cell-child'] !== undefined) return cellChild(args['cell-child']);
  const started = Date.now();
  const list = entries();
  const random = seededRandom(SEED);
  const meta = {
    started: new Date(started).toISOString(),
    machine: machine(),
    plugin: pluginSource,
    other: args.other,
    seed: SEED,
    rounds: ROUNDS,
    warmup: WARMUP,
    requests: REQUESTS,
    concurrency: CONCURRENCY,
    stubCalls: STUB_CALLS,
    heapCalls: HEAP_CALLS,
    clock: CLOCK,
    isolate: args.isolate,
    gcBetweenCells: !args['no-gc'],
    loadAverageAtStart: loadavg(),
    contenders: list.map((e) => ({ key: e.key, label: e.label })),
  };
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(`# bench:overhead  (${meta.machine} · load average ${load()})`);
  console.log(`axios-resilience from ${pluginSource}${args.other ? `; other build from ${args.other}` : ''}`);
  console.log(
    `${ROUNDS} rounds (+${WARMUP} warm-up), order shuffled every round (seed ${SEED}); cells of ${REQUESTS} requests at concurrency ${CONCURRENCY} (sockets), ${STUB_CALLS} sequential calls (stub); ${args.isolate ? 'each contender in a process of its own' : 'all contenders in this process'}; ${CLOCK === 'cpu' ? "the measuring process's CPU time" : 'wall-clock time'}; ${args.isolate ? 'Hodges–Lehmann shifts over processes with Mann–Whitney 90 % intervals' : 'medians over rounds with 90 % order-statistic intervals'}\n`,
  );

  let socketCells: Cell[] = [];
  let stubCells: Cell[] = [];
  const heapCells: HeapCell[] = [];
  if (PHASES.includes('sockets')) {
    const server = await startServer();
    const agent = args.isolate ? undefined : keepAliveAgent();
    try {
      const runner = agent
        ? inProcess(list, { baseURL: server.url, agent }, REQUESTS, CONCURRENCY)
        : await inChildren(list, 'sockets', server.url, REQUESTS, CONCURRENCY);
      socketCells = await runRounds('sockets', list, runner, REQUESTS, random);
    } finally {
      agent?.destroy();
      await server.close();
    }
    console.log(`## Over keep-alive sockets (ratio = contender's throughput ÷ bare's, ${SAMPLES}; < 1 is slower)\n`);
    console.log(socketTable(list, socketCells) + '\n');
    if (args.isolate) console.log(processTable(list, socketCells, (t) => fixed(REQUESTS / t, 0)) + '\n');
  }
  if (PHASES.includes('stub')) {
    const runner = args.isolate
      ? await inChildren(list, 'stub', undefined, STUB_CALLS, 1)
      : inProcess(list, STUB_SETUP, STUB_CALLS, 1);
    stubCells = await runRounds('stub', list, runner, STUB_CALLS, random);
    console.log(`## Through a stub adapter (µs per call; µs over bare, ${SAMPLES})\n`);
    console.log(stubTable(list, stubCells) + '\n');
    if (args.isolate) console.log(processTable(list, stubCells, (t) => fixed((t / STUB_CALLS) * 1e6, 2)) + '\n');
  }
  if (PHASES.includes('heap') && HEAP_CALLS > 0) {
    for (let run = 0; run < HEAP_RUNS; run++) {
      for (const e of list) {
        for (const method of METHODS) {
          if (!has(e, method) || e.key === 'bare-header' || e.key === 'ours-aa') continue;
          heapCells.push({
            phase: 'heap',
            method,
            run,
            contender: e.key,
            calls: HEAP_CALLS,
            bytes: heapCell(e.key, method),
          });
        }
      }
    }
    console.log(
      `## Heap retained after ${HEAP_CALLS} stub calls (a child process per cell, after gc; median of ${HEAP_RUNS} run(s))\n`,
    );
    console.log(heapTable(list, heapCells) + '\n');
  }
  if (list.some((e) => e.key === 'axios-resilience')) {
    console.log(`## Goals (issue #14)\n`);
    for (const line of goals(socketCells, stubCells, heapCells)) console.log(`- ${line}`);
  }
  console.log(`\n${((Date.now() - started) / 1000).toFixed(0)} s; load average at the end ${load()}`);
  if (args.out !== undefined) {
    writeRaw(args.out, meta, [...socketCells, ...stubCells, ...heapCells]);
    console.log(`raw cells written to ${args.out}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
