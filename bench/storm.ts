/**
 * Outage behaviour, two scenarios, contenders one after another.
 *
 * storm: 200 logical callers against a server that answers 503 for the first 5 s and 200
 * afterwards, 12 s per contender, against the same child-process server (bench/server.ts). Each
 * caller loops for the whole run: when a call ends (success or failure) it starts the next one,
 * after yielding to the event loop once (so callers that fail fast cannot starve timers). For
 * axios-resilience with a breaker it also records the breaker's transitions and the probes: the
 * requests sent while the breaker was not closed, after it first opened.
 *
 * blip: every call's first attempt is answered 503 and its retry 200 (the server tells a call's
 * attempts apart by an `x-blip-call` header each call carries; every library re-sends a call's
 * headers). Each of `--blip-callers` callers (a comma-separated list: one run per count) loops for
 * `--blip-ms`; then no new call starts and the calls in flight finish. Reported: calls that
 * succeeded ÷ calls finished, and requests the server received ÷ calls finished. The blip server
 * runs in this process (it only has to count, not be fast).
 *
 *   npm run bench:storm
 *   npx tsx bench/storm.ts --callers 200 --outage-ms 5000 --run-ms 12000 --blip-callers 200,10 --blip-ms 4000
 *   npx tsx bench/storm.ts --scenario blip --only axios-retry
 */
import { setMaxListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { getAdapter } from 'axios';
import type { AxiosAdapter } from 'axios';
import { exponentialDelay } from 'axios-retry';
import { fixed, keepAliveAgent, pluginSource, machine, makeContender, percentile, startServer, table } from './common';
import type { BenchServer, ContenderName, ContenderSetup } from './common';
import type { CircuitState, StopReason } from '../lib';

const { values: args } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'all' },
    callers: { type: 'string', default: '200' },
    'outage-ms': { type: 'string', default: '5000' },
    'run-ms': { type: 'string', default: '12000' },
    'blip-callers': { type: 'string', default: '200,10' },
    'blip-ms': { type: 'string', default: '4000' },
    only: { type: 'string' },
  },
});
const SCENARIO = args.scenario;
if (SCENARIO !== 'all' && SCENARIO !== 'storm' && SCENARIO !== 'blip') {
  throw new TypeError(`--scenario must be all, storm or blip, got ${SCENARIO}`);
}
const CALLERS = Number(args.callers);
const OUTAGE_MS = Number(args['outage-ms']);
const RUN_MS = Number(args['run-ms']);
const BLIP_CALLERS = args['blip-callers'].split(',').map(Number);
const BLIP_MS = Number(args['blip-ms']);

/**
 * What the default budget lets through however little traffic there is: `minPerSecond` (10) ×
 * `windowMs` (10 s) retries in any 10 s window, all of them usable at once, so all of them within a
 * 5 s outage. Issue 13's amplification goal is 1.1 + this ÷ the calls started during the outage.
 */
const DEFAULT_BUDGET_FLOOR = 10 * 10;

interface Entry {
  label: string;
  name: ContenderName;
  setup: Omit<ContenderSetup, 'baseURL' | 'agent'>;
}

const AXIOS_RETRY: Entry = {
  label: 'axios-retry (exponentialDelay)',
  name: 'axios-retry',
  setup: { axiosRetry: { retryDelay: exponentialDelay } },
};
const RETRY_AXIOS: Entry = { label: 'retry-axios (defaults)', name: 'retry-axios', setup: {} };
const OURS_DEFAULTS: Entry = { label: 'axios-resilience (defaults)', name: 'axios-resilience', setup: {} };

const STORM_ENTRIES: Entry[] = [
  OURS_DEFAULTS,
  {
    label: 'axios-resilience (budget: false, breaker: false)',
    name: 'axios-resilience',
    setup: { plugin: { budget: false, breaker: false } },
  },
  AXIOS_RETRY,
  RETRY_AXIOS,
];

const BLIP_ENTRIES: Entry[] = [
  OURS_DEFAULTS,
  // The breaker alone, so a shortfall in the row above can be put on the budget or the breaker.
  { label: 'axios-resilience (budget: false)', name: 'axios-resilience', setup: { plugin: { budget: false } } },
  AXIOS_RETRY,
  RETRY_AXIOS,
];

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
const yieldOnce = (): Promise<void> => new Promise((done) => setImmediate(done));
const hasBreaker = (entry: Entry): boolean =>
  entry.name === 'axios-resilience' && entry.setup.plugin?.breaker !== false;

/**
 * Watches the plugin's one breaker through `onCircuitStateChange`, and counts through the adapter
 * every request the plugin sends while that breaker is not closed (open, or half-open with its
 * probe out). Requests it refuses never reach the adapter.
 */
class BreakerWatch {
  state: CircuitState = 'closed';
  readonly transitions: Array<{ state: CircuitState; at: number }> = [];
  sentWhileNotClosed = 0;
  readonly adapter: AxiosAdapter;

  constructor() {
    const http = getAdapter('http');
    this.adapter = (config) => {
      if (this.state !== 'closed') this.sentWhileNotClosed++;
      return http(config);
    };
  }

  readonly onChange = ({ state }: { state: CircuitState }): void => {
    this.state = state;
    this.transitions.push({ state, at: Date.now() });
  };

  count(state: CircuitState): number {
    return this.transitions.filter((t) => t.state === state).length;
  }

  /** The transitions in seconds from `zero`, e.g. `open +0.02 s, half-open +2.31 s, …`. */
  timeline(zero: number, max = 12): string {
    const shown = this.transitions.slice(0, max).map((t) => `${t.state} +${fixed((t.at - zero) / 1000, 2)} s`);
    if (this.transitions.length > max) shown.push(`… ${this.transitions.length - max} more`);
    return shown.length === 0 ? 'never opened' : shown.join(', ');
  }
}

/** The setup of `entry` with the watch (and, when given, a give-up hook) plugged in, for our plugin. */
function watched(
  entry: Entry,
  watch: BreakerWatch | undefined,
  onGiveUp?: (reason: StopReason) => void,
): Omit<ContenderSetup, 'baseURL' | 'agent'> {
  if (entry.name !== 'axios-resilience') return entry.setup;
  return {
    ...entry.setup,
    ...(watch ? { adapter: watch.adapter } : {}),
    plugin: {
      ...entry.setup.plugin,
      ...(watch ? { onCircuitStateChange: watch.onChange } : {}),
      ...(onGiveUp ? { onGiveUp: (event: { stopReason: StopReason }) => onGiveUp(event.stopReason) } : {}),
    },
  };
}

export interface StormResult {
  label: string;
  serverDuringOutage: number;
  callsStartedDuringOutage: number;
  amplification: number;
  /** Requests sent while the breaker was open or half-open; undefined without a breaker. */
  probesSent: number | undefined;
  halfOpens: number | undefined;
  timeline: string | undefined;
  callsStarted: number;
  succeeded: number;
  p50: number;
  p99: number;
  okP50: number;
  okP99: number;
  recoveryMs: number | undefined;
}

async function storm(server: BenchServer, entry: Entry): Promise<StormResult> {
  const agent = keepAliveAgent();
  const watch = hasBreaker(entry) ? new BreakerWatch() : undefined;
  const contender = makeContender(entry.name, { ...watched(entry, watch), baseURL: server.url, agent }, entry.label);
  const startAt = Date.now() + 200;
  const recoverAt = startAt + OUTAGE_MS;
  const endAt = startAt + RUN_MS;
  server.outage(startAt, recoverAt);
  await pause(startAt - Date.now());

  const stop = new AbortController();
  // Every in-flight request and retry wait listens on this one signal.
  setMaxListeners(CALLERS * 4, stop.signal);
  let startedDuringOutage = 0;
  let started = 0;
  let succeeded = 0;
  let firstOkAt: number | undefined;
  const latencies: number[] = [];
  const okLatencies: number[] = [];

  const caller = async (): Promise<void> => {
    while (Date.now() < endAt) {
      const t0 = Date.now();
      started++;
      if (t0 < recoverAt) startedDuringOutage++;
      let ok = false;
      try {
        await contender.http.get('/orders', { signal: stop.signal });
        ok = true;
      } catch {
        // A failed call is simply followed by the next one.
      }
      const t1 = Date.now();
      if (!stop.signal.aborted) {
        latencies.push(t1 - t0);
        if (ok) {
          succeeded++;
          okLatencies.push(t1 - t0);
          firstOkAt ??= t1;
        }
      }
      await yieldOnce();
    }
  };
  const ending = pause(endAt - Date.now()).then(() => stop.abort());
  await Promise.all(Array.from({ length: CALLERS }, caller));
  await ending;
  await contender.close();
  agent.destroy();
  // Let requests already on the wire land before the server's counts are read.
  await pause(200);
  const stats = await server.stats();
  return {
    label: entry.label,
    serverDuringOutage: stats.duringOutage,
    callsStartedDuringOutage: startedDuringOutage,
    amplification: stats.duringOutage / startedDuringOutage,
    probesSent: watch?.sentWhileNotClosed,
    halfOpens: watch?.count('half-open'),
    timeline: watch?.timeline(startAt),
    callsStarted: started,
    succeeded,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    okP50: percentile(okLatencies, 50),
    okP99: percentile(okLatencies, 99),
    recoveryMs: firstOkAt === undefined ? undefined : firstOkAt - recoverAt,
  };
}

interface BlipServer {
  url: string;
  /** Forgets every call and zeroes the count, so one contender's unretried calls cannot affect the next. */
  begin(): void;
  /** Requests received since `begin()`. */
  requests(): number;
  close(): Promise<void>;
}

/** Answers a call's first request 503 and every later one 200, telling calls apart by `x-blip-call`. */
function startBlipServer(): Promise<BlipServer> {
  const failedOnce = new Set<string>();
  let requests = 0;
  const body = Buffer.from('{"ok":true}');
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => {
      const id = req.headers['x-blip-call'];
      let status = 200;
      if (typeof id === 'string') {
        if (failedOnce.delete(id)) status = 200;
        else {
          failedOnce.add(id);
          status = 503;
        }
      }
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        begin: () => {
          failedOnce.clear();
          requests = 0;
        },
        requests: () => requests,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

export interface BlipResult {
  label: string;
  callers: number;
  finished: number;
  succeeded: number;
  requests: number;
  /** Times the breaker opened; undefined without a breaker. */
  opens: number | undefined;
  /** Why our plugin's failed calls stopped, e.g. `budget-exhausted 512, circuit-open 3001`. */
  stopReasons: string | undefined;
  timeline: string | undefined;
  /** Calls still in flight when the drain limit cut them off (0 in a sound run). */
  cutOff: number;
}

async function blip(server: BlipServer, entry: Entry, callers: number): Promise<BlipResult> {
  const agent = keepAliveAgent();
  const watch = hasBreaker(entry) ? new BreakerWatch() : undefined;
  const reasons = new Map<StopReason, number>();
  const onGiveUp = (reason: StopReason): void => void reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  const setup = watched(entry, watch, onGiveUp);
  const contender = makeContender(entry.name, { ...setup, baseURL: server.url, agent }, entry.label);
  server.begin();
  const startAt = Date.now();
  const endAt = startAt + BLIP_MS;
  const stop = new AbortController();
  setMaxListeners(callers * 4, stop.signal);
  // The calls in flight at the end get 10 s to finish; one that does not is reported, not counted.
  const limit = setTimeout(() => stop.abort(), BLIP_MS + 10_000);
  let finished = 0;
  let succeeded = 0;
  let cutOff = 0;
  const caller = async (index: number): Promise<void> => {
    for (let n = 0; Date.now() < endAt && !stop.signal.aborted; n++) {
      let ok = false;
      try {
        await contender.http.get('/orders', { signal: stop.signal, headers: { 'x-blip-call': `${index}.${n}` } });
        ok = true;
      } catch {
        // Counted below as a failed call.
      }
      if (stop.signal.aborted) cutOff++;
      else {
        finished++;
        if (ok) succeeded++;
      }
      await yieldOnce();
    }
  };
  await Promise.all(Array.from({ length: callers }, (_, index) => caller(index)));
  clearTimeout(limit);
  await contender.close();
  agent.destroy();
  await pause(100);
  return {
    label: entry.label,
    callers,
    finished,
    succeeded,
    requests: server.requests(),
    opens: watch?.count('open'),
    timeline: watch?.timeline(startAt),
    stopReasons:
      entry.name === 'axios-resilience'
        ? [...reasons].map(([reason, count]) => `${reason} ${count}`).join(', ') || 'none'
        : undefined,
    cutOff,
  };
}

const selected = (entries: Entry[]): Entry[] =>
  entries.filter((entry) => args.only === undefined || entry.label.includes(args.only));

async function runStorm(): Promise<void> {
  console.log(
    `## storm: ${CALLERS} callers, server 503 for ${OUTAGE_MS} ms then 200, ${RUN_MS} ms per contender, GET, keep-alive agent\n`,
  );
  const server = await startServer();
  const results: StormResult[] = [];
  try {
    for (const entry of selected(STORM_ENTRIES)) results.push(await storm(server, entry));
  } finally {
    await server.close();
  }
  console.log(
    table(
      [
        'contender',
        'server req in outage',
        'calls started in outage',
        'amplification',
        'probes sent',
        'half-opens',
        'calls started',
        'calls ok',
        'p50 ms',
        'p99 ms',
        'ok p50 ms',
        'ok p99 ms',
        'recovery → 1st ok',
      ],
      results.map((r) => [
        r.label,
        String(r.serverDuringOutage),
        String(r.callsStartedDuringOutage),
        fixed(r.amplification, 3),
        r.probesSent === undefined ? 'n/a' : String(r.probesSent),
        r.halfOpens === undefined ? 'n/a' : String(r.halfOpens),
        String(r.callsStarted),
        String(r.succeeded),
        fixed(r.p50, 0),
        fixed(r.p99, 0),
        fixed(r.okP50, 0),
        fixed(r.okP99, 0),
        r.recoveryMs === undefined ? `none in run (> ${RUN_MS - OUTAGE_MS} ms)` : `${r.recoveryMs} ms`,
      ]),
    ),
  );
  console.log(
    '\namplification = server requests during the outage ÷ logical calls started during it. probes sent = requests' +
      ' sent while the breaker was open or half-open (after it first opened); half-opens = probes the breaker let out.' +
      ' Latencies are of calls that ended on their own before the run stopped (calls cut off at the end are left out).',
  );
  for (const r of results) {
    if (r.timeline !== undefined)
      console.log(`breaker of ${r.label} (s from outage start, recovery at +${OUTAGE_MS / 1000} s): ${r.timeline}`);
  }
  const ours = results.find((r) => r.label === OURS_DEFAULTS.label);
  if (ours !== undefined) {
    const bound = 1.1 + DEFAULT_BUDGET_FLOOR / ours.callsStartedDuringOutage;
    console.log(
      `\ngoal (issue 13): amplification during the outage ≤ 1.1 + budget floor (${DEFAULT_BUDGET_FLOOR} ÷ ` +
        `${ours.callsStartedDuringOutage} calls) = ${fixed(bound, 3)}: ${fixed(ours.amplification, 3)}, ` +
        `${ours.amplification <= bound ? 'met' : 'missed'}`,
    );
    console.log(
      `goal (issue 13): first success within 5000 ms of recovery with defaults: ` +
        (ours.recoveryMs === undefined
          ? `none within ${RUN_MS - OUTAGE_MS} ms, missed`
          : `${ours.recoveryMs} ms, ${ours.recoveryMs <= 5000 ? 'met' : 'missed'}`),
    );
  }
}

async function runBlip(): Promise<void> {
  console.log(
    `\n## blip: every call's first attempt 503, its retry 200; callers ${BLIP_CALLERS.join(' and ')}, ` +
      `${BLIP_MS} ms of new calls per contender, then the calls in flight finish; GET, keep-alive agent\n`,
  );
  const server = await startBlipServer();
  const results: BlipResult[] = [];
  try {
    for (const callers of BLIP_CALLERS) {
      for (const entry of selected(BLIP_ENTRIES)) results.push(await blip(server, entry, callers));
    }
  } finally {
    await server.close();
  }
  console.log(
    table(
      [
        'contender',
        'callers',
        'calls finished',
        'calls ok',
        'success rate',
        'server requests',
        'requests / call',
        'breaker opened',
        'failed calls by stop reason',
      ],
      results.map((r) => [
        r.label,
        String(r.callers),
        String(r.finished),
        String(r.succeeded),
        `${fixed((100 * r.succeeded) / r.finished, 1)} %`,
        String(r.requests),
        fixed(r.requests / r.finished, 2),
        r.opens === undefined ? 'n/a' : `${r.opens}×`,
        r.stopReasons ?? 'n/a',
      ]),
    ),
  );
  console.log(
    '\nsuccess rate = calls that succeeded ÷ calls finished; requests / call = server requests ÷ calls finished.',
  );
  const cut = results.filter((r) => r.cutOff > 0);
  for (const r of cut) console.log(`warning: ${r.cutOff} calls of ${r.label} (${r.callers} callers) were cut off`);
  for (const r of results) {
    if (r.timeline === undefined) continue;
    console.log(
      `breaker of ${r.label}, ${r.callers} callers (s from start, new calls until +${BLIP_MS / 1000} s): ${r.timeline}`,
    );
  }
  for (const r of results.filter((x) => x.label === OURS_DEFAULTS.label)) {
    const rate = (100 * r.succeeded) / r.finished;
    console.log(
      `goal (issue 13): blips pass with defaults, ${r.callers} callers: ${fixed(rate, 1)} % of calls succeeded, ` +
        `${rate >= 99.5 ? 'met' : 'missed'}`,
    );
  }
}

async function main(): Promise<void> {
  console.log(`# bench:storm  (${machine()})`);
  console.log(`axios-resilience loaded from ${pluginSource}\n`);
  if (SCENARIO !== 'blip') await runStorm();
  if (SCENARIO !== 'storm') await runBlip();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
