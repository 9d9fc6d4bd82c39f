/**
 * Fake timers and the plugin, in both creation orders. jest, vitest and sinon replace `Date.now`
 * on the global object when they are installed; a plugin made at module scope, before them, used
 * to keep the real clock, so its deadline and budget never saw fake time pass (4 attempts and
 * 34.6 s of fake waits past a 20 s deadline, in the report). The deadline and the budget
 * now read the clock when a call runs. The scenarios are in support/clocks/scenario.ts; vitest
 * runs them in a child process (support/clocks/vitest-clock.vitest.ts).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import FakeTimers from '@sinonjs/fake-timers';
import { retryPlugin } from '../../lib';
import type { RetryPlugin } from '../../lib';
import { BUDGET_OPTIONS, DEADLINE_OPTIONS, EXPECTED, budget, deadline } from '../support/clocks/scenario';

// Made at module scope, before any fake timers, as a user's module would make it: one pair for
// each library, so a budget one library's run spent is not the next one's.
const early = {
  jest: { deadline: retryPlugin(DEADLINE_OPTIONS), budget: retryPlugin(BUDGET_OPTIONS) },
  sinon: { deadline: retryPlugin(DEADLINE_OPTIONS), budget: retryPlugin(BUDGET_OPTIONS) },
};
const made: RetryPlugin[] = Object.values(early).flatMap((pair) => [pair.deadline, pair.budget]);
afterAll(async () => {
  for (const plugin of made) await plugin.close();
});

const make = (order: string, which: 'deadline' | 'budget', library: keyof typeof early): RetryPlugin => {
  if (order === 'before the fake timers') return early[library][which];
  const plugin = retryPlugin(which === 'deadline' ? DEADLINE_OPTIONS : BUDGET_OPTIONS);
  made.push(plugin);
  return plugin;
};

const ORDERS = ['before the fake timers', 'after the fake timers'];

describe.each(ORDERS)('jest fake timers, the plugin made %s', (order) => {
  beforeEach(() => jest.useFakeTimers({ now: Date.UTC(2026, 11, 2) }));
  afterEach(() => jest.useRealTimers());

  test('the deadline passes in fake time: 4 attempts, 3.5 s, stop reason deadline', async () => {
    const outcome = await deadline(make(order, 'deadline', 'jest'), Date.now, () =>
      jest.advanceTimersToNextTimerAsync(),
    );
    expect(outcome).toEqual(EXPECTED.deadline);
  });

  test('the budget window passes in fake time: the third call is granted its retry again', async () => {
    const reasons = await budget(
      make(order, 'budget', 'jest'),
      () => jest.advanceTimersToNextTimerAsync(),
      (ms) => jest.advanceTimersByTimeAsync(ms),
    );
    expect(reasons).toEqual(EXPECTED.budget);
  });
});

describe.each(ORDERS)('@sinonjs/fake-timers, the plugin made %s', (order) => {
  let clock: ReturnType<typeof FakeTimers.install>;
  beforeEach(() => {
    clock = FakeTimers.install({ now: Date.UTC(2026, 11, 2), toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => clock.uninstall());

  test('the deadline passes in fake time: 4 attempts, 3.5 s, stop reason deadline', async () => {
    const outcome = await deadline(
      make(order, 'deadline', 'sinon'),
      () => clock.now,
      () => clock.nextAsync().then(() => undefined),
    );
    expect(outcome).toEqual(EXPECTED.deadline);
  });

  test('the budget window passes in fake time: the third call is granted its retry again', async () => {
    const reasons = await budget(
      make(order, 'budget', 'sinon'),
      () => clock.nextAsync().then(() => undefined),
      (ms) => clock.tickAsync(ms).then(() => undefined),
    );
    expect(reasons).toEqual(EXPECTED.budget);
  });
});

test('vitest 3 fake timers, in both orders (a child process: vitest runs its own files)', () => {
  const root = join(__dirname, '../..');
  const out = execFileSync(
    process.execPath,
    [
      join(root, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--config',
      join(root, '__tests__/support/clocks/vitest.config.mts'),
    ],
    { cwd: root, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', CI: '1' } },
  );
  // eslint-disable-next-line no-control-regex
  expect(out.replace(/\x1b\[[0-9;]*m/g, '')).toMatch(/Tests\s+4 passed \(4\)/);
});
