/**
 * Outage behaviour: 200 logical callers against a server that answers 503 for the first 5 s and
 * 200 afterwards, 12 s per contender, contenders one after another against the same child-process
 * server. Each caller loops for the whole run: when a call ends (success or failure) it starts the
 * next one, after yielding to the event loop once (so callers that fail fast cannot starve timers).
 *
 *   npm run bench:storm
 *   npx tsx bench/storm.ts --callers 200 --outage-ms 5000 --run-ms 12000
 */
import { setMaxListeners } from 'node:events';
import { parseArgs } from 'node:util';
import { exponentialDelay } from 'axios-retry';
import { fixed, keepAliveAgent, pluginSource, machine, makeContender, percentile, startServer, table } from './common';
import type { BenchServer, ContenderName, ContenderSetup } from './common';

const { values: args } = parseArgs({
  options: {
    callers: { type: 'string', default: '200' },
    'outage-ms': { type: 'string', default: '5000' },
    'run-ms': { type: 'string', default: '12000' },
    only: { type: 'string' },
  },
});
const CALLERS = Number(args.callers);
const OUTAGE_MS = Number(args['outage-ms']);
const RUN_MS = Number(args['run-ms']);

interface Entry {
  label: string;
  name: ContenderName;
  setup: Omit<ContenderSetup, 'baseURL' | 'agent'>;
}

const ENTRIES: Entry[] = [
  { label: 'axios-resilience (defaults)', name: 'axios-resilience', setup: {} },
  {
    label: 'axios-resilience (budget: false, breaker: false)',
    name: 'axios-resilience',
    setup: { plugin: { budget: false, breaker: false } },
  },
  {
    label: 'axios-resilience (breaker.resetTimeout: 2000) *',
    name: 'axios-resilience',
    setup: { plugin: { breaker: { resetTimeout: 2000 } } },
  },
  {
    label: 'axios-retry (exponentialDelay)',
    name: 'axios-retry',
    setup: { axiosRetry: { retryDelay: exponentialDelay } },
  },
  { label: 'retry-axios (defaults)', name: 'retry-axios', setup: {} },
];

export interface StormResult {
  label: string;
  serverDuringOutage: number;
  callsStartedDuringOutage: number;
  amplification: number;
  callsStarted: number;
  succeeded: number;
  p50: number;
  p99: number;
  okP50: number;
  okP99: number;
  recoveryMs: number | undefined;
}

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
const yieldOnce = (): Promise<void> => new Promise((done) => setImmediate(done));

async function storm(server: BenchServer, entry: Entry): Promise<StormResult> {
  const agent = keepAliveAgent();
  const contender = makeContender(entry.name, { ...entry.setup, baseURL: server.url, agent }, entry.label);
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
    callsStarted: started,
    succeeded,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    okP50: percentile(okLatencies, 50),
    okP99: percentile(okLatencies, 99),
    recoveryMs: firstOkAt === undefined ? undefined : firstOkAt - recoverAt,
  };
}

async function main(): Promise<void> {
  console.log(`# bench:storm  (${machine()})`);
  console.log(`axios-resilience loaded from ${pluginSource}`);
  console.log(
    `${CALLERS} callers, server 503 for ${OUTAGE_MS} ms then 200, ${RUN_MS} ms per contender, GET, keep-alive agent\n`,
  );
  const server = await startServer();
  const results: StormResult[] = [];
  try {
    for (const entry of ENTRIES) {
      if (args.only !== undefined && !entry.label.includes(args.only)) continue;
      results.push(await storm(server, entry));
    }
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
        String(r.callsStarted),
        String(r.succeeded),
        fixed(r.p50, 0),
        fixed(r.p99, 0),
        fixed(r.okP50, 0),
        fixed(r.okP99, 0),
        r.recoveryMs === undefined ? 'none in run' : `${r.recoveryMs} ms`,
      ]),
    ),
  );
  console.log(
    '\namplification = server requests during the outage ÷ logical calls started during it. Latencies are of calls' +
      ' that ended on their own before the run stopped (calls cut off at the end are left out).' +
      '\n* not a default: the breaker with a 2 s reset, for comparison with its 30 s default.',
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
