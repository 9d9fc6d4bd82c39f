/**
 * No leaks: 100,000 calls through the plugin (stub adapter, some retried) retain less than 1 MB of
 * heap after GC, and no call's config (which holds its state and adapter closure) outlives it.
 * Runs in a child `node --expose-gc` process: jest gives a test no reliable gc() and its module
 * registry and --detectOpenHandles bookkeeping would blur the heap numbers.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { reportFigures } from '../support/figures';

const run = promisify(execFile);

test('100,000 calls: retained heap grows < 1 MB and no per-call state survives', async () => {
  const { stdout } = await run(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', path.join(__dirname, '..', 'support', 'reliability', 'leak-child.ts'), '100000'],
    { cwd: path.resolve(__dirname, '../..'), timeout: 150_000 },
  );
  const result = JSON.parse(stdout) as {
    calls: number;
    growth: number;
    steadyGrowth: number;
    sampled: number;
    alive: number;
  };
  reportFigures('leak check', result);
  expect(result.calls).toBe(100_000);
  expect(result.sampled).toBe(100);
  expect(result.alive).toBe(0);
  expect(result.growth).toBeLessThan(1024 * 1024);
  expect(result.steadyGrowth).toBeLessThan(1024 * 1024);
}, 180_000);
