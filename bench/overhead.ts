/**
 * What each retry library costs a call that succeeds (docs/performance.md, "Success-path overhead"):
 * bare axios, its A/A copy (the run's noise), the plugin with defaults and its A/A copy, axios-retry,
 * retry-axios, and for POST bare axios + 1 header (what axios spends on any header), each on its own
 * instance; `--other a.cjs,b.cjs` adds other builds in the same rounds. Phases: sockets (GET and POST
 * to the child-process server, cells of `--requests` at `--concurrency`), stub (`--stub-calls`
 * sequential calls through an adapter that answers at once: CPU per call) and heap (retained after
 * `--heap-calls` stub calls, a fresh process each). Each round runs one cell of every contender and
 * method in a freshly shuffled order; `--isolate` runs each contender in `--processes` processes of
 * its own (the measure of record); `compare` says how the figures are taken.
 *
 *   npm run build && BENCH_PLUGIN=dist/index.cjs npm run bench:overhead -- --isolate --processes 8
 *   npm run bench:overhead -- --rounds 5 --heap-calls 0      # a quick look, lib/ through tsx
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { AxiosHeaders } from 'axios';
import type { AxiosAdapter, AxiosInstance } from 'axios';
import { seededRandom } from '../lib/testing';
import { median, medianInterval, ratioInterval, shiftInterval } from './stats';
import type { MedianInterval } from './stats';
import { bare, connect, fixed, flags, forkChild, keepAliveAgent, loadPlugin, machine, main, only } from './harness';
import { pause, pluginSource, pool, resilience, serveParent, shuffle, startServer, table, writeOut } from './harness';
import { withAxiosRetry, withRetryAxios, yieldOnce } from './harness';
import type { Child, Contender, PluginModule, Setup } from './harness';

const args = flags({
  rounds: Number(process.env.BENCH_ROUNDS ?? 100),
  warmup: 2,
  requests: 500,
  concurrency: 32,
  'stub-calls': 10_000,
  'heap-calls': Number(process.env.BENCH_HEAP_CALLS ?? 100_000),
  'heap-runs': 3,
  seed: 1,
  phases: 'sockets,stub,heap',
  methods: 'get,post',
  only: undefined,
  other: undefined,
  isolate: false,
  processes: 4,
  out: undefined,
  // Internal: the contender a child process runs, as JSON (see startChild).
  child: undefined,
});

type Method = 'get' | 'post';
type Phase = 'sockets' | 'stub';
const METHODS = args.methods.split(',') as Method[];
const PROCESSES = args.isolate ? args.processes : 1;
const OTHERS = args.other?.split(',').filter((path) => path !== '') ?? [];
const CELL: Record<Phase, { calls: number; concurrency: number }> = {
  sockets: { calls: args.requests, concurrency: args.concurrency },
  stub: { calls: args['stub-calls'], concurrency: 1 },
};

/** The key bare axios sends in the "one more header" row: the length of a uuid, fixed. */
const FIXED_KEY = '3b241101-e2bb-4255-8caf-4136c566a962';
const payload = { amount: 4200, currency: 'EUR', note: 'benchmark' };
const send: Record<Method, (http: AxiosInstance) => Promise<unknown>> = {
  get: (http) => http.get('/items/1'),
  post: (http) => http.post('/payments', payload),
};

/** An adapter that answers at once, the way a cache or a test double would. */
const stubAdapter: AxiosAdapter = (config) =>
  Promise.resolve({
    data: '{"ok":true}',
    status: 200,
    statusText: 'OK',
    headers: new AxiosHeaders({ 'content-type': 'application/json' }),
    config,
    request: {},
  });
const STUB: Setup = { baseURL: 'http://stub.local', adapter: stubAdapter };

/**
 * A second, separately evaluated copy of a single-file build: its own functions, which V8
 * compiles and optimises on their own, as it did the first copy's. axios, opossum and uuid stay
 * shared, as in any process. The module cache is left as it was found.
 */
function loadCopy(path: string): PluginModule {
  const require = createRequire(__filename);
  const file = require.resolve(resolve(path));
  const first = require.cache[file];
  delete require.cache[file];
  try {
    return require(file) as PluginModule;
  } finally {
    if (first === undefined) delete require.cache[file];
    else require.cache[file] = first;
  }
}

const otherKey = (index: number): string => (index === 0 ? 'other' : `other${index + 1}`);

function contenders(): Contender[] {
  const list = [
    bare(),
    bare('bare-aa', 'bare axios (A/A copy)'),
    bare('bare-header', 'bare axios + 1 header', (http) => {
      http.defaults.headers.post['Idempotency-Key'] = FIXED_KEY;
    }),
    resilience('axios-resilience', 'axios-resilience'),
  ];
  // The plugin's A/A control: isolated, more processes of the plugin; in one process, a build
  // evaluated a second time (lib/'s modules would be shared, so lib/ has no copy).
  const build = process.env.BENCH_PLUGIN;
  if (args.isolate || build !== undefined) {
    let copy: PluginModule | undefined;
    const load = args.isolate ? undefined : () => (copy ??= loadCopy(build!));
    list.push(resilience('ours-aa', 'axios-resilience (A/A copy)', {}, load));
  }
  list.push(withAxiosRetry('axios-retry', 'axios-retry'), withRetryAxios('retry-axios', 'retry-axios'));
  OTHERS.forEach((path, i) => list.push(resilience(otherKey(i), `other build ${path}`, {}, () => loadPlugin(path))));
  return only(list, args.only, ['bare']);
}

/** The header row is POST only: it is what one more header costs, and a GET carries no key. */
const methodsOf = (c: Contender): Method[] => (c.key === 'bare-header' ? METHODS.filter((m) => m === 'post') : METHODS);

/** One timed cell: `seconds` of wall-clock time; `process` is which of the contender's processes ran it, else 0. */
interface Cell {
  phase: Phase;
  method: Method;
  round: number;
  position: number;
  contender: string;
  process: number;
  calls: number;
  seconds: number;
}
type HeapCell = { phase: 'heap'; method: Method; run: number; contender: string; calls: number; bytes: number };

/** A full collection before each cell, so no cell pays for the garbage of the one before it. */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Times one cell, in seconds: `calls` calls with `concurrency` in flight, after a full collection. */
async function timeCell(http: AxiosInstance, method: Method, phase: Phase, gc: () => void): Promise<number> {
  const { calls, concurrency } = CELL[phase];
  gc();
  const t0 = process.hrtime.bigint();
  await pool(calls, concurrency, () => send[method](http));
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/** Heap growth over `calls` stub calls after 5 000 warm-up calls, in a process of its own. */
async function heapGrowth(http: AxiosInstance, method: Method, calls: number, gc: () => void): Promise<number> {
  // Stub calls never leave the microtask queue; yielding every 1000 calls lets timers run, as
  // they would in a real program (opossum's rolling window rotates on one).
  const callMany = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) {
      await send[method](http);
      if (i % 1000 === 999) await yieldOnce();
    }
  };
  // Without the pause about one process in eight read ~200 kB less after the run than before it
  // (something from start-up still being freed).
  const settled = async (): Promise<number> => {
    await pause(100);
    for (let i = 0; i < 3; i++) gc();
    return process.memoryUsage().heapUsed;
  };
  await callMany(5000);
  const before = await settled();
  await callMany(calls);
  return (await settled()) - before;
}

type Order = { type: 'cell'; method: Method; phase: Phase } | { type: 'heap'; method: Method };

/** Starts the contender `key` in a process of its own, set up for the server at `url` or for the stub. */
async function startChild(key: string, url: string | undefined, execArgv: string[] = []): Promise<Child> {
  // What the child needs to build the same contender and cells as this process.
  const forwarded = args.isolate ? ['--isolate'] : [];
  if (args.other !== undefined) forwarded.push('--other', args.other);
  for (const name of ['requests', 'concurrency', 'stub-calls', 'heap-calls'] as const) {
    forwarded.push(`--${name}`, String(args[name]));
  }
  const child = forkChild(__filename, ['--child', JSON.stringify({ key, url }), ...forwarded], execArgv);
  await child.reply(); // ready
  return child;
}

/** The child side: builds the contender, says it is ready, then answers one order at a time. */
function childMain(spec: string): void {
  const { key, url } = JSON.parse(spec) as { key: string; url?: string };
  const contender = contenders().find((c) => c.key === key);
  if (contender === undefined) throw new Error(`unknown contender ${key}`);
  // Without a stub, connect makes the child's keep-alive agent, and closing the client destroys it.
  const client = connect(contender, url === undefined ? STUB : { baseURL: url });
  const gc = collector();
  const answer = async (order: Order): Promise<number> =>
    order.type === 'cell'
      ? timeCell(client.http, order.method, order.phase, gc)
      : heapGrowth(client.http, order.method, args['heap-calls'], gc);
  serveParent(answer, () => client.close());
}

/** Who runs a phase's cells (this process, or the contenders' own, `--isolate`): `run` gives the seconds of one. */
type Runner = { run(i: number, p: number, method: Method): Promise<number>; close(): Promise<void> };

function inProcess(list: Contender[], phase: Phase, setup: Setup): Runner {
  const clients = list.map((c) => connect(c, setup));
  const gc = collector();
  return {
    run: (i, _process, method) => timeCell(clients[i]!.http, method, phase, gc),
    close: async () => {
      for (const c of clients) await c.close();
    },
  };
}

/**
 * Each contender in `PROCESSES` processes of its own, with its own axios, as in a user's program:
 * in one process every contender's configs and adapters pass through the same axios functions,
 * and what V8 makes of those depends on the mix. Only one child runs a cell at a time.
 */
async function inChildren(list: Contender[], phase: Phase, url: string | undefined): Promise<Runner> {
  const children: Child[][] = [];
  const close = async (): Promise<void> => {
    for (const child of children.flat()) await child.close();
  };
  try {
    for (const c of list) {
      const mine: Child[] = [];
      children.push(mine);
      for (let p = 0; p < PROCESSES; p++) mine.push(await startChild(c.key, url));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { run: (i, p, method) => children[i]![p]!.ask({ type: 'cell', method, phase } satisfies Order), close };
}

/** Every round runs one cell of every contender, process and method, in an order shuffled afresh. */
async function runRounds(phase: Phase, list: Contender[], runner: Runner, random: () => number): Promise<Cell[]> {
  const order: Array<{ i: number; p: number; method: Method }> = [];
  for (const method of METHODS) {
    for (const [i, c] of list.entries()) {
      if (methodsOf(c).includes(method)) for (let p = 0; p < PROCESSES; p++) order.push({ i, p, method });
    }
  }
  const cells: Cell[] = [];
  try {
    for (let round = -args.warmup; round < args.rounds; round++) {
      for (const [position, { i, p, method }] of shuffle(order, random).entries()) {
        const seconds = await runner.run(i, p, method);
        const { calls } = CELL[phase];
        if (round >= 0)
          cells.push({ phase, method, round, position, contender: list[i]!.key, process: p, calls, seconds });
      }
    }
  } finally {
    await runner.close();
  }
  return cells;
}

async function measure(phase: Phase, list: Contender[], random: () => number): Promise<Cell[]> {
  const server = phase === 'sockets' ? await startServer() : undefined;
  const agent = server !== undefined && !args.isolate ? keepAliveAgent() : undefined;
  try {
    const runner = args.isolate
      ? await inChildren(list, phase, server?.url)
      : inProcess(list, phase, server !== undefined ? { baseURL: server.url, agent: agent! } : STUB);
    return await runRounds(phase, list, runner, random);
  } finally {
    agent?.destroy();
    await server?.close();
  }
}

/** Each process of the contenders `keys`: its median time over rounds. */
function perProcess(cells: Cell[], method: Method, keys: readonly string[]): number[] {
  const times = new Map<string, number[]>();
  for (const c of cells) {
    if (c.method !== method || !keys.includes(c.contender)) continue;
    const id = `${c.contender}#${c.process}`;
    times.set(id, [...(times.get(id) ?? []), c.seconds]);
  }
  return [...times.values()].map(median);
}

/**
 * `keys` against `refs`, as a throughput ratio (sockets) or µs per call added (stub). In one process,
 * per round against the reference's cell of that round (a slow spell falls on both), then the median
 * over rounds. Isolated, each process is one sample (its rounds share its JIT and memory layout, so
 * they are not independent): the Hodges–Lehmann shift between the two sets. Pooling needs `--isolate`.
 */
function compare(cells: Cell[], method: Method, keys: readonly string[], refs: readonly string[]): MedianInterval {
  const sockets = cells[0]?.phase === 'sockets';
  const perCall = (seconds: number): number => (seconds / (cells[0]?.calls ?? 1)) * 1e6;
  if (args.isolate) {
    const [mine, theirs] = [perProcess(cells, method, keys), perProcess(cells, method, refs)];
    const rates = (times: number[]): number[] => times.map((t) => 1 / t);
    if (sockets) return ratioInterval(rates(mine), rates(theirs));
    return shiftInterval(mine.map(perCall), theirs.map(perCall));
  }
  const ref = new Map(
    cells.filter((c) => c.method === method && c.contender === refs[0]).map((c) => [c.round, c.seconds]),
  );
  const values: number[] = [];
  for (const c of cells) {
    const r = ref.get(c.round);
    if (c.method !== method || c.contender !== keys[0] || r === undefined) continue;
    values.push(sockets ? r / c.seconds : perCall(c.seconds) - perCall(r));
  }
  return medianInterval(values);
}

const digits = (phase: Phase): number => (phase === 'sockets' ? 3 : 2);
const formatInterval = (m: MedianInterval, d: number): string =>
  `${fixed(m.median, d)} [${fixed(m.low, d)}, ${fixed(m.high, d)}]`;
/** A cell's own figure: requests per second over sockets, µs per call through the stub. */
const figure = (phase: Phase, seconds: number): number =>
  phase === 'sockets' ? CELL.sockets.calls / seconds : (seconds / CELL.stub.calls) * 1e6;
const showFigure = (phase: Phase, value: number): string => fixed(value, phase === 'sockets' ? 0 : 2);

/** Each contender's own figure (median over its cells) and its comparison with bare, per method. */
function phaseTable(phase: Phase, list: Contender[], cells: Cell[]): string {
  const [unit, versus, reference] =
    phase === 'sockets' ? ['req/s', 'ratio to', '1.000 (reference)'] : ['µs/call', 'µs over', '0.00 (reference)'];
  const columns = (c: Contender, method: Method): string[] => {
    if (!methodsOf(c).includes(method)) return ['–', '–'];
    const own = cells.filter((x) => x.method === method && x.contender === c.key).map((x) => figure(phase, x.seconds));
    const vsBare =
      c.key === 'bare' ? reference : formatInterval(compare(cells, method, [c.key], ['bare']), digits(phase));
    return [showFigure(phase, median(own)), vsBare];
  };
  const headers = METHODS.flatMap((m) => [`${m.toUpperCase()} ${unit}`, `${m.toUpperCase()} ${versus} bare [90 % CI]`]);
  const rows = list
    .filter((c) => methodsOf(c).length > 0)
    .map((c) => [c.label, ...METHODS.flatMap((m) => columns(c, m))]);
  return table(['contender', ...headers], rows);
}

/** `--isolate`: each process's own figure, so the spread between processes is in view. */
function processTable(phase: Phase, list: Contender[], cells: Cell[]): string {
  const shown = (t: number): string => showFigure(phase, figure(phase, t));
  const each = (c: Contender, method: Method): string =>
    methodsOf(c).includes(method) ? perProcess(cells, method, [c.key]).map(shown).join(' ') : '–';
  const rows = list.map((c) => [c.label, ...METHODS.map((method) => each(c, method))]);
  return table(['contender', ...METHODS.map((m) => `${m.toUpperCase()}, each process`)], rows);
}

/** Heap growth per contender and method, each in a fresh process, `--heap-runs` times. */
async function heap(list: Contender[]): Promise<HeapCell[]> {
  const cells: HeapCell[] = [];
  // The header row is a socket and stub control, and the A/A copy is the plugin again.
  const measured = list.filter((c) => c.key !== 'bare-header' && c.key !== 'ours-aa');
  for (let run = 0; run < args['heap-runs']; run++) {
    for (const c of measured) {
      for (const method of METHODS) {
        // V8 may otherwise free the bytecode of start-up code mid-run: a possible source of heap noise.
        const child = await startChild(c.key, undefined, ['--expose-gc', '--no-flush-bytecode']);
        const bytes = await child.ask<number>({ type: 'heap', method } satisfies Order);
        await child.close();
        cells.push({ phase: 'heap', method, run, contender: c.key, calls: args['heap-calls'], bytes });
      }
    }
  }
  const kB = (c: Contender, method: Method): string =>
    fixed(median(cells.filter((x) => x.contender === c.key && x.method === method).map((x) => x.bytes / 1000)), 1);
  const rows = measured.map((c) => [c.label, ...METHODS.map((method) => kB(c, method))]);
  console.log(`## Heap retained after ${args['heap-calls']} stub calls (median of ${args['heap-runs']} processes)\n`);
  console.log(table(['contender', ...METHODS.map((m) => `${m.toUpperCase()} kB retained`)], rows) + '\n');
  return cells;
}

/**
 * Comparisons beyond the tables: the plugin against bare + 1 header (POST) and against each peer,
 * other builds against this one, and, isolated, the plugin's processes pooled with its A/A copy's
 * against bare's pooled with bare's A/A (the copy is the same plugin in more processes).
 */
function comparisons(list: Contender[], phases: Array<[Phase, Cell[]]>): string[] {
  const ours = args.isolate ? ['axios-resilience', 'ours-aa'] : ['axios-resilience'];
  const pooled = args.isolate ? ' (pooled with its A/A copy)' : '';
  type Pair = [label: string, keys: string[], refs: string[], methods: Method[]];
  const pairs: Pair[] = [
    [`axios-resilience${pooled} against bare + 1 header`, ours, ['bare-header'], ['post']],
    ['axios-resilience against axios-retry', ['axios-resilience'], ['axios-retry'], METHODS],
    ['axios-resilience against retry-axios', ['axios-resilience'], ['retry-axios'], METHODS],
    ...OTHERS.map((path, i): Pair => [`${path} against this build`, [otherKey(i)], ['axios-resilience'], METHODS]),
  ];
  if (args.isolate)
    pairs.unshift([`axios-resilience${pooled} against bare and its A/A`, ours, ['bare', 'bare-aa'], METHODS]);
  const ran = (key: string): boolean => list.some((c) => c.key === key);
  const lines: string[] = [];
  for (const [phase, cells] of phases) {
    for (const [label, keys, refs, methods] of pairs) {
      if (![...keys, ...refs].every(ran)) continue;
      for (const method of methods.filter((m) => METHODS.includes(m))) {
        const m = formatInterval(compare(cells, method, keys, refs), digits(phase));
        lines.push(`${phase} ${method.toUpperCase()}, ${label}: ${m}${phase === 'stub' ? ' µs' : ''}`);
      }
    }
  }
  return lines;
}

/** The figures in this process, or (`--child`) one contender in a process of its own. */
function report(): void {
  const list = contenders();
  const random = seededRandom(args.seed);
  const others = OTHERS.length > 0 ? `other builds ${OTHERS.join(', ')}; ` : '';
  const order = `${args.rounds} rounds (+${args.warmup} warm-up), order shuffled every round (seed ${args.seed})`;
  const size = `cells of ${args.requests} requests at concurrency ${args.concurrency} (sockets), ${CELL.stub.calls} sequential calls (stub)`;
  const how = args.isolate
    ? `each contender in ${PROCESSES} processes of its own; Hodges–Lehmann shifts over processes with Mann–Whitney 90 % intervals`
    : 'all contenders in this process; medians over rounds with 90 % order-statistic intervals';
  main('overhead', `${others}${order}; ${size}; ${how}`, async () => {
    const samples = args.isolate ? 'each process its median over rounds, compared over processes' : 'per round';
    const phases: Array<[Phase, Cell[]]> = [];
    for (const phase of ['sockets', 'stub'] as const) {
      if (!args.phases.split(',').includes(phase)) continue;
      const cells = await measure(phase, list, random);
      phases.push([phase, cells]);
      const [title, what] =
        phase === 'sockets'
          ? ['Over keep-alive sockets', `ratio = contender's throughput ÷ bare's, ${samples}; < 1 is slower`]
          : ['Through a stub adapter', `µs over bare, ${samples}`];
      console.log(`## ${title} (${what})\n`);
      console.log(phaseTable(phase, list, cells) + '\n');
      if (args.isolate) console.log(processTable(phase, list, cells) + '\n');
    }
    const heapCells = args.phases.split(',').includes('heap') && args['heap-calls'] > 0 ? await heap(list) : [];
    console.log(
      '## Comparisons (sockets: throughput of the first ÷ the second; stub: µs per call, first minus second)\n',
    );
    for (const line of comparisons(list, phases)) console.log(`- ${line}`);
    const meta = { machine: machine(), plugin: pluginSource, ...args, contenders: list.map((c) => c.key) };
    const all = [...phases.flatMap(([, phaseCells]) => phaseCells), ...heapCells];
    writeOut(args.out, JSON.stringify({ meta, cells: all }, null, 1) + '\n', 'raw cells');
  });
}

if (args.child !== undefined) childMain(args.child);
else report();
