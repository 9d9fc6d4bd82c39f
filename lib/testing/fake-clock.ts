import { typed } from '../policy/validate';
import { isFake } from './real-timers';

/**
 * The fake clocks `settle()` can drive: jest's and vitest's (`jest` and `vi` themselves), and an
 * @sinonjs/fake-timers clock. All three are @sinonjs/fake-timers underneath; each is reduced here to
 * the four things `settle()` needs.
 */

/** `jest` (modern fake timers) or `vi`: the object whose methods advance its fake timers. */
export interface RunnerTimersLike {
  advanceTimersByTimeAsync(ms: number): unknown;
  advanceTimersToNextTimerAsync(): unknown;
  getTimerCount(): number;
}

/** A clock from `@sinonjs/fake-timers` (`FakeTimers.install()` or `createClock()`). */
export interface SinonClockLike {
  now: number;
  tickAsync(ms: number): unknown;
  nextAsync(): unknown;
  countTimers(): number;
}

/** What `settle()` accepts as its clock: `jest`, `vi`, or an @sinonjs/fake-timers clock. */
export type FakeClockLike = RunnerTimersLike | SinonClockLike;

/** A fake clock, as `settle()` drives it. */
export interface FakeClock {
  /** Runs what is due now: fake `nextTick`s and immediates, zero-length timers. */
  flush(): Promise<void>;
  /** Advances to the next timer and fires it (and any due at the same time). */
  next(): Promise<void>;
  /** Timers (and fake ticks) pending. */
  pending(): number;
  /** The fake time in ms, when the clock tells it. */
  now(): number | undefined;
}

/** Whether `value` has each of these methods (the shape, since no fake-timers class is imported). */
function hasMethods<T extends object>(value: object, ...names: Array<keyof T & string>): value is T {
  return names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
}

/** `jest.now()` (the fake clock's time) or vitest's `vi.getMockedSystemTime()`. */
function runnerNow(timers: object): number | undefined {
  if (hasMethods<{ now(): number }>(timers, 'now')) return timers.now();
  if (hasMethods<{ getMockedSystemTime(): Date | null }>(timers, 'getMockedSystemTime')) {
    return timers.getMockedSystemTime()?.getTime();
  }
  return undefined;
}

/** The driver for `clock`, or a `TypeError` saying what was expected. */
export function fakeClock(clock: unknown): FakeClock {
  if (clock !== null && (typeof clock === 'object' || typeof clock === 'function')) {
    if (hasMethods<SinonClockLike>(clock, 'tickAsync', 'nextAsync', 'countTimers')) {
      return {
        flush: async () => void (await clock.tickAsync(0)),
        next: async () => void (await clock.nextAsync()),
        pending: () => clock.countTimers(),
        now: () => clock.now,
      };
    }
    if (
      hasMethods<RunnerTimersLike>(clock, 'advanceTimersByTimeAsync', 'advanceTimersToNextTimerAsync', 'getTimerCount')
    ) {
      // jest's modern and vitest's fakes are @sinonjs/fake-timers fakes of the global timers.
      if (!isFake(globalThis.setTimeout)) {
        throw new TypeError(
          'axios-resilience/testing: settle() needs fake timers installed first: call jest.useFakeTimers() or vi.useFakeTimers()',
        );
      }
      return {
        flush: async () => void (await clock.advanceTimersByTimeAsync(0)),
        next: async () => void (await clock.advanceTimersToNextTimerAsync()),
        pending: () => clock.getTimerCount(),
        now: () => runnerNow(clock),
      };
    }
  }
  throw new TypeError(
    'axios-resilience/testing: settle() needs a fake clock: `jest`, `vi`, or an @sinonjs/fake-timers clock, got ' +
      typed(clock),
  );
}
