/**
 * What a retry library does to a server in trouble: two scenarios, contenders one after another
 * against the child-process server, GETs over a keep-alive agent.
 *
 * storm: `--callers` closed-loop callers for `--run-ms` against a server that answers 503 for the
 * first `--outage-ms` and 200 after. Reported: requests the server got during the outage against
 * the calls started in it, latencies, the time from recovery to the first success, and for the
 * plugin its breaker's transitions and the probes it sent (requests while the breaker was not
 * closed, after it first opened).
 *
 * blip: every call's first attempt is answered 503 and its retry 200 (the server tells calls apart
 * by the `x-call-id` header, which every library re-sends). Callers (`--blip-callers`, one run per
 * count) start calls for `--blip-ms`, then the calls in flight finish. Reported: calls that
 * succeeded and requests per call, and why the plugin's failed calls stopped.
 *
 *   npm run bench:storm
 *   npx tsx bench/storm.ts --scenario blip --only axios-retry --blip-callers 10 --blip-ms 1000
 */
import { getAdapter } from 'axios';
import { exponentialDelay } from 'axios-retry';
import type { CircuitState, StopReason } from '../lib';
import { percentile } from './stats';
import { Calls, connect, fixed, flags, keepAliveAgent, main, only, pause, resilience } from './harness';
import { startServer, table, withAxiosRetry, withRetryAxios, yieldOnce } from './harness';
import type { BenchServer, Call, Contender, Setup } from './harness';

const args = flags({
  scenario: 'all',
  callers: 200,
  'outage-ms': 5000,
  'run-ms': 12000,
  'blip-callers': '200,10',
  'blip-ms': 4000,
  only: undefined,
});
if (!['all', 'storm', 'blip'].includes(args.scenario)) throw new TypeError('--scenario is all, storm or blip');

const ours = resilience('axios-resilience', 'axios-resilience (defaults)');
const peers = [
  withAxiosRetry('axios-retry', 'axios-retry (exponentialDelay)', { retryDelay: exponentialDelay }),
  withRetryAxios('retry-axios', 'retry-axios (defaults)'),
];
const unguarded = resilience('no-budget-breaker', 'axios-resilience (budget: false, breaker: false)', {
  budget: false,
  breaker: false,
});
const STORM = only([ours, unguarded, ...peers], args.only);
// The breaker alone, so a shortfall of the defaults can be put on the budget or on the breaker.
const breakerOnly = resilience('no-budget', 'axios-resilience (budget: false)', { budget: false });
const BLIP = only([ours, breakerOnly, ...peers], args.only);

/**
 * What the plugin's hooks and the adapter tell about one run: the breaker's transitions, the
 * requests sent while it was not closed (refused calls never reach the adapter), and the stop
 * reasons of failed calls. Other contenders have no breaker and no stop reasons (`n/a`).
 */
class Watch {
  state: CircuitState = 'closed';
  readonly transitions: Array<{ state: CircuitState; at: number }> = [];
  probes = 0;
  readonly stops = new Map<StopReason, number>();

  constructor(readonly contender: Contender) {}

  get hasBreaker(): boolean {
    return this.contender.options !== undefined && this.contender.options.breaker !== false;
  }

  setup(baseURL: string): Setup & { agent: NonNullable<Setup['agent']> } {
    const http = getAdapter('http');
    return {
      baseURL,
      agent: keepAliveAgent(),
      adapter: (config) => {
        if (this.state !== 'closed') this.probes++;
        return http(config);
      },
      hooks: {
        onCircuitStateChange: ({ state }) => {
          this.state = state;
          this.transitions.push({ state, at: Date.now() });
        },
        onGiveUp: ({ stopReason }) => void this.stops.set(stopReason, (this.stops.get(stopReason) ?? 0) + 1),
      },
    };
  }

  count(state: CircuitState): string {
    return this.hasBreaker ? String(this.transitions.filter((t) => t.state === state).length) : 'n/a';
  }

  stopReasons(): string {
    if (this.contender.options === undefined) return 'n/a';
    return [...this.stops].map(([reason, n]) => `${reason} ${n}`).join(', ') || 'none';
  }

  /** The transitions in seconds from `zero`: `open +1.33 s, half-open +3.42 s, …`. */
  timeline(zero: number, max = 12): string {
    const shown = this.transitions.slice(0, max).map((t) => `${t.state} +${fixed((t.at - zero) / 1000, 2)} s`);
    if (this.transitions.length > max) shown.push(`… ${this.transitions.length - max} more`);
    return shown.length === 0 ? 'never opened' : shown.join(', ');
  }
}

/**
 * One contender's run against the server as configured: `callers` closed-loop callers until
 * `endAt`, each yielding to the event loop once after a call (so callers that fail fast cannot
 * starve timers); calls still in flight `graceMs` after `endAt` are cut. Resolves the calls and
 * the server's counts.
 */
async function measure(server: BenchServer, watch: Watch, callers: number, endAt: number, graceMs: number) {
  const setup = watch.setup(server.url);
  const client = connect(watch.contender, setup);
  const calls = new Calls(client.http);
  calls.abortAt(endAt + graceMs);
  await calls.loop(callers, endAt, yieldOnce);
  calls.finish();
  await client.close();
  setup.agent.destroy();
  // Let requests already on the wire land before the server's counts are read.
  await pause(200);
  return { calls: calls.list, server: await server.stats() };
}

async function storm(server: BenchServer): Promise<void> {
  const { callers, 'outage-ms': outageMs, 'run-ms': runMs } = args;
  console.log(`## storm: ${callers} callers, 503 for ${outageMs} ms then 200, ${runMs} ms per contender\n`);
  const rows: string[][] = [];
  const timelines: string[] = [];
  for (const contender of STORM) {
    const watch = new Watch(contender);
    const startAt = Date.now() + 200;
    const recoverAt = startAt + outageMs;
    await server.configure({ outage: { startAt, endAt: recoverAt } });
    await pause(startAt - Date.now());
    const result = await measure(server, watch, callers, startAt + runMs, 0);
    const inOutage = result.calls.filter((c) => c.began < recoverAt).length;
    // Latencies are of calls that ended before the run stopped: a cut call's says nothing.
    const ended = result.calls.filter((c) => c.code !== 'unfinished');
    const ok = ended.filter((c) => c.ok);
    const ms = (list: Call[], p: number): string =>
      fixed(
        percentile(
          list.map((c) => c.ms),
          p,
        ),
        0,
      );
    const firstOk = ok.reduce((first, c) => Math.min(first, c.at), Infinity);
    rows.push([
      contender.label,
      String(result.server.duringOutage),
      String(inOutage),
      fixed(result.server.duringOutage / inOutage, 3),
      watch.hasBreaker ? String(watch.probes) : 'n/a',
      watch.count('half-open'),
      String(result.calls.length),
      String(ok.length),
      ms(ended, 50),
      ms(ended, 99),
      ms(ok, 50),
      ms(ok, 99),
      Number.isFinite(firstOk) ? `${firstOk - recoverAt} ms` : `none in run (> ${runMs - outageMs} ms)`,
    ]);
    if (watch.hasBreaker) timelines.push(`breaker of ${contender.label}: ${watch.timeline(startAt)}`);
  }
  const columns = ['contender', 'server req in outage', 'calls started in outage', 'amplification'];
  columns.push('probes sent', 'half-opens', 'calls started', 'calls ok', 'p50 ms', 'p99 ms', 'ok p50 ms', 'ok p99 ms');
  console.log(table([...columns, 'recovery → 1st ok'], rows));
  console.log(
    '\namplification = server requests during the outage ÷ calls started during it. probes sent = requests sent' +
      ' while the breaker was open or half-open; half-opens = probes the breaker let out. Latencies are of calls' +
      ` that ended before the run stopped. Breaker transitions in s from the outage start (recovery at +${outageMs / 1000} s):`,
  );
  for (const line of timelines) console.log(`- ${line}`);
}

async function blip(server: BenchServer): Promise<void> {
  const counts = args['blip-callers'].split(',').map(Number);
  const blipMs = args['blip-ms'];
  console.log(
    `\n## blip: every call's first attempt 503, its retry 200; ${counts.join(' and ')} callers, ` +
      `${blipMs} ms of new calls per contender, then the calls in flight finish\n`,
  );
  const rows: string[][] = [];
  const warnings: string[] = [];
  const timelines: string[] = [];
  for (const callers of counts) {
    for (const contender of BLIP) {
      const watch = new Watch(contender);
      await server.configure({ failFirst: true });
      const startAt = Date.now();
      // The calls in flight at the end get 10 s to finish; one that does not is reported, not counted.
      const result = await measure(server, watch, callers, startAt + blipMs, 10_000);
      const finished = result.calls.filter((c) => c.code !== 'unfinished');
      const ok = finished.filter((c) => c.ok).length;
      rows.push([
        contender.label,
        String(callers),
        String(finished.length),
        String(ok),
        `${fixed((100 * ok) / finished.length, 1)} %`,
        String(result.server.requests),
        fixed(result.server.requests / finished.length, 2),
        watch.hasBreaker ? `${watch.count('open')}×` : 'n/a',
        watch.stopReasons(),
      ]);
      const cut = result.calls.length - finished.length;
      if (cut > 0) warnings.push(`warning: ${cut} calls of ${contender.label} (${callers} callers) were cut off`);
      if (watch.hasBreaker)
        timelines.push(`breaker of ${contender.label}, ${callers} callers: ${watch.timeline(startAt)}`);
    }
  }
  const columns = ['contender', 'callers', 'calls finished', 'calls ok', 'success rate', 'server requests'];
  console.log(table([...columns, 'requests / call', 'breaker opened', 'failed calls by stop reason'], rows));
  console.log('\nsuccess rate = calls ok ÷ calls finished; requests / call = server requests ÷ calls finished.');
  for (const line of warnings) console.log(line);
  console.log(`Breaker transitions in s from the start (new calls until +${blipMs / 1000} s):`);
  for (const line of timelines) console.log(`- ${line}`);
}

main('storm', `scenario ${args.scenario}`, async () => {
  const server = await startServer();
  try {
    if (args.scenario !== 'blip') await storm(server);
    if (args.scenario !== 'storm') await blip(server);
  } finally {
    await server.close();
  }
});
