/**
 * What a retry library does to a server in an outage, and how soon its callers get through once it is
 * back (docs/performance.md, "Outage, blip and recovery"): `--callers` closed-loop callers of GET for
 * `--run-ms` against the child-process server answering 503 for `--outage-ms`, then 200; contenders
 * one after another. Reported: the server's requests in the outage against the calls started in it,
 * latencies, recovery to the first success, and the plugin's breaker transitions and probes.
 *
 *   npm run bench:storm
 *   npx tsx bench/storm.ts --only axios-resilience --callers 50 --outage-ms 2000 --run-ms 4000
 */
import { getAdapter } from 'axios';
import { exponentialDelay } from 'axios-retry';
import type { CircuitState } from '../lib';
import { percentile } from './stats';
import { Calls, connect, fixed, flags, keepAliveAgent, main, only, pause, resilience } from './harness';
import { startServer, table, withAxiosRetry, withRetryAxios, yieldOnce } from './harness';
import type { Call } from './harness';

const args = flags({ callers: 200, 'outage-ms': 5000, 'run-ms': 12000, only: undefined });

const unguarded = { budget: false, breaker: false } as const;
const CONTENDERS = only(
  [
    resilience('axios-resilience', 'axios-resilience (defaults)'),
    resilience('no-budget-breaker', 'axios-resilience (budget: false, breaker: false)', unguarded),
    withAxiosRetry('axios-retry', 'axios-retry (exponentialDelay)', { retryDelay: exponentialDelay }),
    withRetryAxios('retry-axios', 'retry-axios (defaults)'),
  ],
  args.only,
);

/** The breaker's transitions, told by the plugin's hook, and the requests the adapter sent while it was not closed. */
type Breaker = { state: CircuitState; transitions: Array<{ state: CircuitState; at: number }>; probes: number };

main('storm', `${args.callers} callers, 503 for ${args['outage-ms']} ms then 200`, async () => {
  const { callers, 'outage-ms': outageMs, 'run-ms': runMs } = args;
  console.log(`## storm: ${callers} callers, 503 for ${outageMs} ms then 200, ${runMs} ms per contender\n`);
  const server = await startServer();
  const rows: string[][] = [];
  const timelines: string[] = [];
  try {
    for (const contender of CONTENDERS) {
      const breaker: Breaker = { state: 'closed', transitions: [], probes: 0 };
      const hasBreaker = contender.options !== undefined && contender.options.breaker !== false;
      const startAt = Date.now() + 200;
      const recoverAt = startAt + outageMs;
      await server.configure({ outage: { startAt, endAt: recoverAt } });
      await pause(startAt - Date.now());
      const http = getAdapter('http');
      const agent = keepAliveAgent();
      const client = connect(contender, {
        baseURL: server.url,
        agent,
        // Refused calls never reach the adapter: what does is a probe while the breaker is not closed.
        adapter: (config) => {
          if (breaker.state !== 'closed') breaker.probes++;
          return http(config);
        },
        hooks: {
          onCircuitStateChange: ({ state }) => {
            breaker.state = state;
            breaker.transitions.push({ state, at: Date.now() });
          },
        },
      });
      const calls = new Calls(client.http);
      calls.abortAt(startAt + runMs);
      // Each caller yields once after a call, so callers that fail fast cannot starve timers.
      await calls.loop(callers, startAt + runMs, yieldOnce);
      calls.finish();
      await client.close();
      agent.destroy();
      await pause(200); // requests already on the wire land before the server's counts are read
      const stats = await server.stats();
      const inOutage = calls.list.filter((c) => c.began < recoverAt).length;
      // Latencies are of calls that ended before the run stopped: a cut call's says nothing.
      const ended = calls.list.filter((c) => c.code !== 'unfinished');
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
      const halfOpens = breaker.transitions.filter((t) => t.state === 'half-open').length;
      rows.push([
        contender.label,
        String(stats.duringOutage),
        String(inOutage),
        fixed(stats.duringOutage / inOutage, 3),
        hasBreaker ? String(breaker.probes) : 'n/a',
        hasBreaker ? String(halfOpens) : 'n/a',
        String(calls.list.length),
        String(ok.length),
        ms(ended, 50),
        ms(ended, 99),
        ms(ok, 50),
        ms(ok, 99),
        Number.isFinite(firstOk) ? `${firstOk - recoverAt} ms` : `none in run (> ${runMs - outageMs} ms)`,
      ]);
      const shown = breaker.transitions.slice(0, 12).map((t) => `${t.state} +${fixed((t.at - startAt) / 1000, 2)} s`);
      if (breaker.transitions.length > 12) shown.push(`… ${breaker.transitions.length - 12} more`);
      if (hasBreaker) timelines.push(`breaker of ${contender.label}: ${shown.join(', ') || 'never opened'}`);
    }
  } finally {
    await server.close();
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
});
