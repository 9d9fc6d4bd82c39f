/**
 * bench:jitter: runs the contention study (see jitter-sim.ts) for N = 10, 20, … 100 and 100 runs per
 * point, writes docs/jitter-results.csv and renders two line charts with vega-lite and vega into
 * docs/jitter-calls.svg and docs/jitter-completion.svg.
 *
 *   npm run bench:jitter
 *   npx tsx bench/jitter.ts --runs 100 --out docs
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { TopLevelSpec } from 'vega-lite';
import { fixed, table } from './common';
import { STRATEGIES, STUDY, point } from './jitter-sim';
import type { PointResult, Strategy } from './jitter-sim';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '100' },
    out: { type: 'string', default: join(__dirname, '..', 'docs') },
  },
});
const RUNS = Number(args.runs);
const CLIENTS = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];

function csv(results: PointResult[]): string {
  const header = 'strategy,clients,runs,calls_mean,calls_median,completion_ms_mean,completion_ms_median';
  const lines = results.map((r) =>
    [
      r.strategy,
      r.clients,
      r.runs,
      r.callsMean.toFixed(1),
      r.callsMedian.toFixed(1),
      r.completionMeanMs.toFixed(1),
      r.completionMedianMs.toFixed(1),
    ].join(','),
  );
  return [header, ...lines].join('\n') + '\n';
}

async function chart(
  results: PointResult[],
  field: 'callsMean' | 'completionMeanMs',
  title: string,
  axis: string,
  log: boolean,
): Promise<string> {
  // vega is ESM with top-level await (vega-canvas), so it cannot be require()d: load it dynamically.
  const vega = await import('vega');
  const vegaLite = await import('vega-lite');
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 560,
    height: 320,
    background: 'white',
    data: { values: results.map((r) => ({ strategy: r.strategy, clients: r.clients, value: r[field] })) },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'clients', type: 'quantitative', title: 'clients (N)', scale: { domain: [10, 100] } },
      y: { field: 'value', type: 'quantitative', title: axis, ...(log ? { scale: { type: 'log' } } : {}) },
      color: { field: 'strategy', type: 'nominal', sort: [...STRATEGIES], title: 'strategy' },
    },
  };
  const compiled = vegaLite.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

function winner(results: PointResult[], clients: number, field: 'callsMean' | 'completionMeanMs'): Strategy {
  const at = results.filter((r) => r.clients === clients);
  return at.reduce((best, r) => (r[field] < best[field] ? r : best)).strategy;
}

async function main(): Promise<void> {
  const t0 = Date.now();
  console.log(
    `# bench:jitter  (virtual time; base ${STUDY.baseMs} ms, cap ${STUDY.capMs} ms, hop |N(${STUDY.hopMeanMs}, ${STUDY.hopSdMs})| ms, ${RUNS} runs per point)\n`,
  );
  const results: PointResult[] = [];
  for (const clients of CLIENTS) for (const strategy of STRATEGIES) results.push(point(strategy, clients, RUNS));

  mkdirSync(args.out, { recursive: true });
  writeFileSync(join(args.out, 'jitter-results.csv'), csv(results));
  writeFileSync(
    join(args.out, 'jitter-calls.svg'),
    await chart(results, 'callsMean', 'Write calls until every client succeeded (mean of runs)', 'write calls', false),
  );
  writeFileSync(
    join(args.out, 'jitter-completion.svg'),
    await chart(
      results,
      'completionMeanMs',
      'Time until the last client succeeded (mean of runs)',
      'completion time (ms, log scale)',
      true,
    ),
  );

  for (const clients of [50, 100]) {
    console.log(`## N = ${clients}\n`);
    const rows = results
      .filter((r) => r.clients === clients)
      .map((r) => [
        r.strategy,
        fixed(r.callsMean, 0),
        fixed(r.callsMedian, 0),
        fixed(r.completionMeanMs, 0),
        fixed(r.completionMedianMs, 0),
      ]);
    console.log(
      table(['strategy', 'calls (mean)', 'calls (median)', 'completion ms (mean)', 'completion ms (median)'], rows),
    );
    console.log(
      `\nfewest calls: ${winner(results, clients, 'callsMean')}; fastest completion: ${winner(results, clients, 'completionMeanMs')}\n`,
    );
  }
  const jittered = (s: Strategy): boolean => s.endsWith('jitter') && s !== 'exponential (no jitter)';
  const callWins = CLIENTS.map((n) =>
    winner(
      results.filter((r) => jittered(r.strategy)),
      n,
      'callsMean',
    ),
  );
  const timeWins = CLIENTS.map((n) =>
    winner(
      results.filter((r) => jittered(r.strategy)),
      n,
      'completionMeanMs',
    ),
  );
  console.log(`among the jittered strategies, fewest calls by N ${CLIENTS.join('/')}: ${callWins.join(', ')}`);
  console.log(`among the jittered strategies, fastest completion by N: ${timeWins.join(', ')}`);
  console.log(
    `\nwrote ${join(args.out, 'jitter-results.csv')}, jitter-calls.svg, jitter-completion.svg in ${Date.now() - t0} ms`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
