/**
 * What one opossum `fire` costs on the success path, for docs/opossum-patch.md: opossum as
 * installed against patched copies of it (directories given by `--patched`, which may repeat; kept
 * outside this repo), with the options the plugin uses (no timeout, no cache, no coalescing, no capacity,
 * percentiles and snapshots off, an error filter, a bucket rotation driven from outside).
 *
 * Cells of `--calls` sequential `await breaker.fire(adapter, config, options)` against an action
 * that returns a fresh resolved promise, and the same calls to the action without a breaker
 * ("direct"). Each round runs one cell of each in an order shuffled with a seeded random, after a
 * full collection; the rolling window is rotated before every cell (the plugin rotates it every
 * second, so it never holds more than about a second of calls). Reported: medians over rounds of
 * µs per fire over direct, with 90 % order-statistic intervals, and the per-round difference.
 *
 *   npx tsx bench/opossum-fire.ts --patched /tmp/opossum-patch [--rounds 200] [--calls 20000]
 */
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type CircuitBreaker from 'opossum';
import { seededRandom } from '../lib/testing/random';
import { fixed, machine, median, medianInterval, shuffle, table } from './common';

const { values: args } = parseArgs({
  options: {
    patched: { type: 'string', multiple: true },
    rounds: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '5' },
    calls: { type: 'string', default: '20000' },
    seed: { type: 'string', default: '1' },
  },
});
if (args.patched === undefined || args.patched.length === 0)
  throw new Error('--patched <directory of a patched opossum> is required');
const ROUNDS = Number(args.rounds);
const CALLS = Number(args.calls);

type Breaker = typeof CircuitBreaker;
const load = createRequire(__filename);
const installed = load('opossum') as Breaker;

const response = { status: 200 };
const adapter = (): Promise<typeof response> => Promise.resolve(response);
const action = (send: typeof adapter, _config: object, _options: object): Promise<typeof response> => send();
const config = { url: '/items/1' };
const options = { retries: 5 };

interface Contender {
  name: string;
  rotate(): void;
  call(): Promise<unknown>;
}

function breakerContender(name: string, Impl: Breaker): Contender {
  const rotation = new EventEmitter();
  const breaker = new Impl(action, {
    timeout: false,
    rollingPercentilesEnabled: false,
    enableSnapshots: false,
    errorThresholdPercentage: 50,
    volumeThreshold: 20,
    resetTimeout: 30000,
    rollingCountTimeout: 10000,
    rollingCountBuckets: 10,
    errorFilter: () => false,
    rotateBucketController: rotation,
  });
  return { name, rotate: () => rotation.emit('rotate'), call: () => breaker.fire(adapter, config, options) };
}

const contenders: Contender[] = [
  { name: 'direct (no breaker)', rotate: () => undefined, call: () => action(adapter, config, options) },
  breakerContender('opossum as installed', installed),
  ...args.patched.map((dir) => breakerContender(`patched: ${basename(dir)}`, load(resolve(dir)) as Breaker)),
];

async function main(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const random = seededRandom(Number(args.seed));
  const seconds = contenders.map(() => [] as number[]);
  const order = contenders.map((_, i) => i);
  const started = Date.now();
  for (let round = -Number(args.warmup); round < ROUNDS; round++) {
    for (const i of shuffle(order, random)) {
      const c = contenders[i]!;
      c.rotate();
      gc();
      const t0 = process.hrtime.bigint();
      for (let n = 0; n < CALLS; n++) await c.call();
      const s = Number(process.hrtime.bigint() - t0) / 1e9;
      if (round >= 0) seconds[i]!.push(s);
    }
  }
  const perCall = (s: number): number => (s / CALLS) * 1e6;
  const over = (i: number, ref: number): number[] => seconds[i]!.map((s, r) => perCall(s) - perCall(seconds[ref]![r]!));
  const show = (values: number[]): string => {
    const m = medianInterval(values);
    return `${fixed(m.median, 3)} [${fixed(m.low, 3)}, ${fixed(m.high, 3)}]`;
  };
  console.log(`# bench/opossum-fire.ts (${machine()})`);
  console.log(`patched copies: ${args.patched!.map((dir) => resolve(dir)).join(', ')}`);
  console.log(
    `${ROUNDS} rounds (+${args.warmup} warm-up) × ${CALLS} sequential calls per cell, order shuffled per round (seed ${args.seed}); ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  );
  console.log(
    table(
      ['contender', 'median µs/call', 'µs per call over direct [90 % CI]'],
      contenders.map((c, i) => [c.name, fixed(median(seconds[i]!.map(perCall)), 3), i === 0 ? '–' : show(over(i, 0))]),
    ),
  );
  console.log('');
  for (let i = 2; i < contenders.length; i++) {
    console.log(`${contenders[i]!.name} minus installed, per round: ${show(over(i, 1))} µs per fire`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
