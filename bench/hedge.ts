/**
 * Hedged requests against a heavy-tailed server: 98 % of responses in ~5 ms, 2 % in ~500 ms (seeded),
 * served by a child process on 127.0.0.1. Closed-loop clients make the same number of GETs with no
 * hedge, a fixed hedge delay and the adaptive p95 delay, and the script reports p50 / p99 / p99.9
 * latency and the extra requests the hedges cost.
 *
 *   npm run bench:hedge
 *   npx tsx bench/hedge.ts --calls 4000 --clients 20 --fixed-ms 10 --seed 7
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import axios from 'axios';
import { seededRandom } from '../lib/testing';
import { keepAliveAgent, machine, percentile, plugin, pluginSource, table } from './common';

const { values: args } = parseArgs({
  options: {
    calls: { type: 'string', default: '4000' },
    clients: { type: 'string', default: '20' },
    'fixed-ms': { type: 'string', default: '10' },
    seed: { type: 'string', default: '20261202' },
    server: { type: 'boolean', default: false },
    svg: { type: 'string' },
  },
});

/** The child: a server whose latency is drawn per request from a seeded heavy-tailed mix. */
function serve(): void {
  const random = seededRandom(Number(args.seed));
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    const slow = random() < 0.02;
    const ms = slow ? 480 + random() * 40 : 4 + random() * 2;
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'), ms);
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', (message: { type: string }) => {
    if (message.type === 'count') {
      process.send!({ requests });
      requests = 0;
    }
  });
  process.on('disconnect', () => server.close(() => process.exit(0)));
}

function ask<T>(child: ChildProcess, message: object): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (reply) => resolve(reply as T));
    child.send(message);
  });
}

interface Variant {
  label: string;
  hedge: false | { delayMs: number | 'p95'; maxHedges?: number };
}

async function main(): Promise<void> {
  const calls = Number(args.calls);
  const clients = Number(args.clients);
  const child = fork(__filename, ['--server', '--seed', String(args.seed)], { execArgv: process.execArgv });
  const { port } = await new Promise<{ port: number }>((resolve) => child.once('message', resolve as never));
  const variants: Variant[] = [
    { label: 'no hedge', hedge: false },
    { label: `hedge after ${args['fixed-ms']} ms`, hedge: { delayMs: Number(args['fixed-ms']) } },
    { label: "hedge after 'p95' (adaptive)", hedge: { delayMs: 'p95' } },
  ];
  const rows: string[][] = [];
  const results: Array<{ label: string; p50: number; p99: number; p999: number; extra: number; hedges: number }> = [];
  for (const variant of variants) {
    const retry = plugin.retryPlugin({ hedge: variant.hedge });
    const http = axios.create({ baseURL: `http://127.0.0.1:${port}`, httpAgent: keepAliveAgent() });
    retry.install(http);
    await ask(child, { type: 'count' });
    const latencies: number[] = [];
    let hedges = 0;
    let next = 0;
    const loop = async (): Promise<void> => {
      while (next < calls) {
        next++;
        const started = performance.now();
        const response = await http.get('/item');
        latencies.push(performance.now() - started);
        hedges += response.config.retryState?.hedges ?? 0;
      }
    };
    await Promise.all(Array.from({ length: clients }, loop));
    const { requests } = await ask<{ requests: number }>(child, { type: 'count' });
    await retry.close();
    const result = {
      label: variant.label,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      p999: percentile(latencies, 99.9),
      extra: (requests - calls) / calls,
      hedges,
    };
    results.push(result);
    rows.push([
      result.label,
      result.p50.toFixed(1),
      result.p99.toFixed(1),
      result.p999.toFixed(1),
      `${(result.extra * 100).toFixed(2)} %`,
    ]);
  }
  child.disconnect();
  if (args.svg) writeFileSync(args.svg, chart(results));
  console.log(`hedging: ${calls} GETs, ${clients} closed-loop clients, seed ${String(args.seed)}; ${machine()}`);
  console.log(`plugin: ${pluginSource}; server: 98 % ~5 ms, 2 % ~500 ms (child process)\n`);
  console.log(table(['variant', 'p50 ms', 'p99 ms', 'p99.9 ms', 'extra requests'], rows));
  const base = results[0]!;
  for (const result of results.slice(1)) {
    const factor = base.p99 / result.p99;
    const met = factor >= 5 && result.extra <= 0.05;
    console.log(
      `${result.label}: p99 ${factor.toFixed(1)}× lower, ${(result.extra * 100).toFixed(2)} % extra — goal (≥ 5×, ≤ 5 %) ${met ? 'met' : 'missed'}`,
    );
  }
}

/** A grouped bar chart of p50 / p99 / p99.9 per variant, on a log scale, as a standalone SVG. */
function chart(results: ReadonlyArray<{ label: string; p50: number; p99: number; p999: number }>): string {
  const width = 640;
  const rowHeight = 70;
  const left = 230;
  const scale = (ms: number): number => ((Math.log10(Math.max(ms, 1)) - 0) / 3) * (width - left - 60);
  const colors = ['#4c78a8', '#f58518', '#e45756'];
  const names = ['p50', 'p99', 'p99.9'];
  const parts: string[] = [];
  results.forEach((result, i) => {
    const y = 30 + i * rowHeight;
    parts.push(`<text x="8" y="${y + 24}" font-size="13">${result.label.replace(/'/g, '&#39;')}</text>`);
    [result.p50, result.p99, result.p999].forEach((ms, j) => {
      const w = scale(ms);
      const by = y + j * 18;
      parts.push(`<rect x="${left}" y="${by}" width="${w.toFixed(1)}" height="14" fill="${colors[j]}"/>`);
      parts.push(
        `<text x="${(left + w + 4).toFixed(1)}" y="${by + 11}" font-size="11">${names[j]} ${ms.toFixed(1)} ms</text>`,
      );
    });
  });
  const height = 40 + results.length * rowHeight;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">\n<text x="8" y="16" font-size="13">Latency per call, log scale (1 ms to 1 s)</text>\n${parts.join('\n')}\n</svg>\n`;
}

if (args.server) serve();
else void main();
