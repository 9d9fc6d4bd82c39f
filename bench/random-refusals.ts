/**
 * A server (or a proxy in front of it) that refuses a share of requests at random with a bare 429,
 * whatever the rate: no limit to find, so a client that slows down for each refusal loses calls and
 * gains nothing. `--share` of requests are refused (seeded), each answer after `--latency-ms`;
 * closed-loop callers (`--callers`) call for `--run-ms`; the contenders run one after another.
 *
 * Reported per contender: calls completed per second over the run and over its second half (after
 * a limiter's start), each also as a share of plain axios's requests per second (which no limiter
 * slows), the calls that failed, and the requests the server received.
 *
 *   npm run bench:random-refusals
 *   npx tsx bench/random-refusals.ts --share 0.01,0.03 --callers 20 --only axios-resilience
 */
import type { Contender } from './harness';
import {
  closedLoop,
  connect,
  fixed,
  flags,
  keepAliveAgent,
  main,
  only,
  plainAndPeers,
  resilience,
  startServer,
  table,
} from './harness';
import type { BenchServer } from './harness';

const args = flags({
  share: '0.01,0.03',
  callers: '20,200',
  'run-ms': 20000,
  'latency-ms': 20,
  only: undefined,
});

const contenders = only(
  [
    ...plainAndPeers(),
    resilience('axios-resilience', 'axios-resilience (defaults)'),
    resilience('no-limiter', 'axios-resilience (rateLimit: false)', { rateLimit: false }),
  ],
  args.only,
  ['bare'],
);

interface Result {
  ok: number;
  /** Completed in the run's second half. */
  okLate: number;
  failed: number;
  requests: number;
  refused: number;
}

async function run(server: BenchServer, contender: Contender, callers: number, share: number): Promise<Result> {
  await server.configure({
    failShare: { share, seed: 7 },
    failStatus: 429,
    latency: { seed: 1, slowShare: 0, slowMs: [0, 0], fastMs: [args['latency-ms'], args['latency-ms']] },
  });
  const client = connect(contender, { baseURL: server.url, agent: keepAliveAgent() });
  const endAt = Date.now() + args['run-ms'];
  const lateFrom = endAt - args['run-ms'] / 2;
  let ok = 0;
  let okLate = 0;
  let failed = 0;
  await closedLoop(client.http, callers, endAt, (succeeded, _began, at) => {
    if (!succeeded) failed++;
    else if (at <= endAt) {
      ok++;
      if (at >= lateFrom) okLate++;
    }
  });
  await client.close();
  const stats = await server.stats();
  return { ok, okLate, failed, requests: stats.requests, refused: stats.failed };
}

main(
  'random-refusals',
  `a bare 429 to a random share of requests, ${args['latency-ms']} ms latency, ${args['run-ms']} ms per run`,
  async () => {
    const server = await startServer();
    try {
      const seconds = args['run-ms'] / 1000;
      for (const share of args.share.split(',').map(Number)) {
        for (const callers of args.callers.split(',').map(Number)) {
          const results = new Map<string, Result>();
          for (const contender of contenders) results.set(contender.key, await run(server, contender, callers, share));
          const plainPerSecond = results.get('bare')!.requests / seconds;
          console.log(`\n## ${fixed(share * 100, 0)} % of requests refused at random, ${callers} callers\n`);
          console.log(
            table(
              [
                'contender',
                'calls done /s',
                'of plain axios req/s',
                'second half /s',
                'of plain',
                'failed calls',
                'server requests /s',
                '429 share',
              ],
              contenders.map((c) => {
                const r = results.get(c.key)!;
                return [
                  c.label,
                  fixed(r.ok / seconds, 0),
                  fixed(r.ok / seconds / plainPerSecond, 2),
                  fixed(r.okLate / (seconds / 2), 0),
                  fixed(r.okLate / (seconds / 2) / plainPerSecond, 2),
                  String(r.failed),
                  fixed(r.requests / seconds, 0),
                  `${fixed((100 * r.refused) / Math.max(1, r.requests), 1)} %`,
                ];
              }),
            ),
          );
        }
      }
    } finally {
      await server.close();
    }
  },
);
