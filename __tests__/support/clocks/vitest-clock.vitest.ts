/** The fake-clock scenarios under vitest's fake timers, in both creation orders (run by deadline-and-abort/fake-clocks). */
import { afterAll, afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { retryPlugin } from '../../../lib';
import type { RetryPlugin } from '../../../lib';
import { BUDGET_OPTIONS, DEADLINE_OPTIONS, EXPECTED, budget, deadline } from './scenario';

const early = { deadline: retryPlugin(DEADLINE_OPTIONS), budget: retryPlugin(BUDGET_OPTIONS) };
const made: RetryPlugin[] = [early.deadline, early.budget];
afterAll(async () => {
  for (const plugin of made) await plugin.close();
});

describe.each(['before the fake timers', 'after the fake timers'])(
  'vitest fake timers, the plugin made %s',
  (order) => {
    const make = (which: 'deadline' | 'budget'): RetryPlugin => {
      if (order === 'before the fake timers') return early[which];
      const plugin = retryPlugin(which === 'deadline' ? DEADLINE_OPTIONS : BUDGET_OPTIONS);
      made.push(plugin);
      return plugin;
    };
    beforeEach(() => {
      vi.useFakeTimers({ now: Date.UTC(2026, 11, 2) });
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    test('the deadline passes in fake time', async () => {
      const outcome = await deadline(
        make('deadline'),
        Date.now,
        async () => void (await vi.advanceTimersToNextTimerAsync()),
      );
      expect(outcome).toEqual(EXPECTED.deadline);
    });

    test('the budget window passes in fake time', async () => {
      const reasons = await budget(
        make('budget'),
        async () => void (await vi.advanceTimersToNextTimerAsync()),
        async (ms) => void (await vi.advanceTimersByTimeAsync(ms)),
      );
      expect(reasons).toEqual(EXPECTED.budget);
    });
  },
);
