/**
 * Hedged requests against a heavy-tailed server: the child-process server answers 98 % of
 * requests in 4–6 ms and 2 % in 480–520 ms (seeded). Closed-loop clients make the same number of
 * GETs through the plugin with no hedge, a fixed hedge delay and the adaptive p95 delay. Reported:
 * p50 / p99 / p99.9 latency and the extra requests the hedges cost.
 *
 *   npm run bench:hedge
 *   npx tsx bench/hedge.ts --calls 4000 --clients 20 --fixed-ms 10 --seed 7 --svg docs/hedge-latency.svg
 */
import { percentile } from './stats';
import { Calls, connect, fixed, flags, main, pool, resilience, startServer, table, writeOut } from './harness';

const args = flags({ calls: 4000, clients: 20, 'fixed-ms': 10, seed: 20261202, svg: undefined });

const variants = [
  resilience('no-hedge', 'no hedge', { hedge: false }),
  resilience('fixed', `hedge after ${args['fixed-ms']} ms`, { hedge: { delayMs: args['fixed-ms'] } }),
  resilience('p95', "hedge after 'p95' (adaptive)", { hedge: { delayMs: 'p95' } }),
];

/** A variant's latencies, and its requests beyond one per call as a share of the calls (`extra`). */
type Result = { label: string; p50: number; p99: number; p999: number; extra: number };

/** A grouped bar chart of p50 / p99 / p99.9 per variant, on a log scale from 1 ms to 1 s, as SVG. */
function chart(results: readonly Result[]): string {
  const [left, width] = [230, 640];
  const scale = (ms: number): number => (Math.log10(Math.max(ms, 1)) / 3) * (width - left - 60);
  const bars = ['p50', 'p99', 'p99.9'] as const;
  const colors = ['#4c78a8', '#f58518', '#e45756'];
  const parts = results.flatMap((result, i) => {
    const y = 30 + i * 70;
    const label = `<text x="8" y="${y + 24}" font-size="13">${result.label.replace(/'/g, '&#39;')}</text>`;
    return [label].concat(
      [result.p50, result.p99, result.p999].flatMap((ms, j) => [
        `<rect x="${left}" y="${y + j * 18}" width="${scale(ms).toFixed(1)}" height="14" fill="${colors[j]}"/>`,
        `<text x="${(left + scale(ms) + 4).toFixed(1)}" y="${y + j * 18 + 11}" font-size="11">${bars[j]} ${ms.toFixed(1)} ms</text>`,
      ]),
    );
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${40 + results.length * 70}" font-family="sans-serif">`,
    '<text x="8" y="16" font-size="13">Latency per call, log scale (1 ms to 1 s)</text>',
    ...parts,
    '</svg>\n',
  ].join('\n');
}

const { calls, clients, seed } = args;
main('hedge', `${calls} GETs per variant, ${clients} closed-loop clients, server seed ${seed}`, async () => {
  const server = await startServer({ latency: { seed, slowShare: 0.02, slowMs: [480, 520], fastMs: [4, 6] } });
  const results: Result[] = [];
  try {
    for (const variant of variants) {
      const client = connect(variant, { baseURL: server.url });
      await server.stats(); // zeroes the count
      const made = new Calls(client.http);
      await pool(calls, clients, () => made.send());
      const { requests } = await server.stats();
      await client.close();
      const latencies = made.list.map((c) => c.ms);
      const [p50, p99, p999] = [50, 99, 99.9].map((p) => percentile(latencies, p)) as [number, number, number];
      results.push({ label: variant.label, p50, p99, p999, extra: (requests - calls) / calls });
    }
  } finally {
    await server.close();
  }
  const percent = (share: number): string => `${fixed(share * 100, 2)} %`;
  const rows = results.map((r) => [r.label, fixed(r.p50, 1), fixed(r.p99, 1), fixed(r.p999, 1), percent(r.extra)]);
  console.log(table(['variant', 'p50 ms', 'p99 ms', 'p99.9 ms', 'extra requests'], rows));
  const [base, ...hedged] = results;
  for (const r of hedged)
    console.log(`${r.label}: p99 ${fixed(base!.p99 / r.p99, 1)}× lower than no hedge, ${percent(r.extra)} extra`);
  writeOut(args.svg, chart(results), 'chart');
});
