/**
 * Success-path overhead: what each retry library costs when nothing fails.
 *
 * Four contenders (bare axios, axios-resilience with defaults, axios-retry defaults, retry-axios
 * defaults) run in interleaved rounds A B C D A B C D …, so a burst of load from another process
 * on this shared machine hits every contender alike. Reported: medians over rounds, and the
 * median of the per-round ratio to bare axios.
 *
 *   npm run bench:overhead
 *   npx tsx bench/overhead.ts --rounds 5 --requests 1000 --stub-calls 10000
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  CONTENDERS,
  drive,
  fixed,
  keepAliveAgent,
  machine,
  makeContender,
  pluginSource,
  median,
  startServer,
  stubAdapter,
  table,
} from './common';
import type { Contender, ContenderName } from './common';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    requests: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '32' },
    'stub-calls': { type: 'string', default: '10000' },
    'heap-calls': { type: 'string', default: '100000' },
  },
});
const ROUNDS = Number(args.rounds);
const REQUESTS = Number(args.requests);
const CONCURRENCY = Number(args.concurrency);
const STUB_CALLS = Number(args['stub-calls']);
const HEAP_CALLS = Number(args['heap-calls']);

const payload = { amount: 4200, currency: 'EUR', note: 'benchmark' };

type Call = (c: Contender) => Promise<unknown>;
const get: Call = (c) => c.http.get('/items/1');
const post: Call = (c) => c.http.post('/payments', payload);

/** One warm-up round, then `ROUNDS` interleaved rounds; seconds per round per contender. */
async function interleave(contenders: Contender[], n: number, concurrency: number, call: Call): Promise<number[][]> {
  const seconds = contenders.map(() => [] as number[]);
  for (let round = -1; round < ROUNDS; round++) {
    for (const [i, c] of contenders.entries()) {
      const s = await drive(n, concurrency, () => call(c));
      if (round >= 0) seconds[i]!.push(s);
    }
  }
  return seconds;
}

function throughputRows(contenders: Contender[], seconds: number[][], n: number): string[][] {
  const bare = seconds[0]!;
  return contenders.map((c, i) => {
    const mine = seconds[i]!;
    const ratios = mine.map((s, r) => bare[r]! / s);
    return [
      c.name,
      fixed(median(mine.map((s) => n / s)), 0),
      fixed(median(ratios), 3),
      `${fixed((median(ratios) - 1) * 100, 1)} %`,
    ];
  });
}

function stubRows(contenders: Contender[], seconds: number[][], n: number): string[][] {
  const bare = seconds[0]!;
  return contenders.map((c, i) => {
    const mine = seconds[i]!;
    const perCall = mine.map((s) => (s / n) * 1e6);
    const extra = mine.map((s, r) => ((s - bare[r]!) / n) * 1e6);
    return [c.name, fixed(median(perCall), 2), fixed(median(extra), 2)];
  });
}

/** Heap growth over `n` stub calls, in a child process of its own (see heap.ts). */
function retainedBytes(name: ContenderName, method: 'get' | 'post', n: number): number {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', join(__dirname, 'heap.ts'), name, method, String(n)],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  return (JSON.parse(out.trim().split('\n').pop()!) as { bytes: number }).bytes;
}

async function main(): Promise<void> {
  console.log(`# bench:overhead  (${machine()})`);
  console.log(`axios-resilience loaded from ${pluginSource}`);
  console.log(
    `rounds ${ROUNDS} (+1 warm-up), ${REQUESTS} requests per round at concurrency ${CONCURRENCY}, ${STUB_CALLS} stub calls per round\n`,
  );
  const server = await startServer();
  const agent = keepAliveAgent();
  const sockets = CONTENDERS.map((name) => makeContender(name, { baseURL: server.url, agent }));
  try {
    const getSeconds = await interleave(sockets, REQUESTS, CONCURRENCY, get);
    console.log(`## GET over keep-alive sockets (child-process node:http server)\n`);
    console.log(
      table(
        ['contender', 'median req/s', 'median ratio to bare', 'vs bare'],
        throughputRows(sockets, getSeconds, REQUESTS),
      ),
    );

    const postSeconds = await interleave(sockets, REQUESTS, CONCURRENCY, post);
    console.log(`\n## POST with a JSON body over keep-alive sockets (axios-resilience adds an Idempotency-Key)\n`);
    console.log(
      table(
        ['contender', 'median req/s', 'median ratio to bare', 'vs bare'],
        throughputRows(sockets, postSeconds, REQUESTS),
      ),
    );
  } finally {
    for (const c of sockets) await c.close();
    agent.destroy();
    await server.close();
  }

  const stubs = CONTENDERS.map((name) => makeContender(name, { baseURL: 'http://stub.local', adapter: stubAdapter }));
  try {
    const getSeconds = await interleave(stubs, STUB_CALLS, 1, get);
    console.log(`\n## GET through a stub adapter (no sockets): CPU per call\n`);
    console.log(table(['contender', 'median µs/call', 'median µs over bare'], stubRows(stubs, getSeconds, STUB_CALLS)));
    const postSeconds = await interleave(stubs, STUB_CALLS, 1, post);
    console.log(`\n## POST through a stub adapter\n`);
    console.log(
      table(['contender', 'median µs/call', 'median µs over bare'], stubRows(stubs, postSeconds, STUB_CALLS)),
    );

    const rows: string[][] = [];
    for (const name of CONTENDERS) {
      rows.push([
        name,
        String(retainedBytes(name, 'get', HEAP_CALLS)),
        String(retainedBytes(name, 'post', HEAP_CALLS)),
      ]);
    }
    console.log(
      `\n## Heap retained after ${HEAP_CALLS} stub calls (one process per cell, after gc; noise is a few kB)\n`,
    );
    console.log(table(['contender', 'GET bytes', 'POST bytes'], rows));
  } finally {
    for (const c of stubs) await c.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
