/** settle() under vitest's fake timers (support/settle/settle.vitest.ts), run in a child process: vitest runs its own files. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

test('vitest runs settle()’s file: all five pass', () => {
  const root = join(__dirname, '../..');
  const out = execFileSync(
    process.execPath,
    [
      join(root, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--config',
      join(root, '__tests__/support/settle/vitest.config.mts'),
    ],
    { cwd: root, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', CI: '1' } },
  );
  // eslint-disable-next-line no-control-regex
  expect(out.replace(/\x1b\[[0-9;]*m/g, '')).toMatch(/Tests\s+5 passed \(5\)/);
});
