import * as timers from 'node:timers';

/**
 * The event loop's own `setImmediate` and `setTimeout`, for yielding to real I/O while fake timers
 * are installed. jest, vitest and @sinonjs/fake-timers replace the globals; @sinonjs/fake-timers
 * installed on Node's real global also replaces the exports of `node:timers` (jest's fake timers
 * fake a test file's own global, which never does; vitest's bundled copy cannot reach `node:timers`).
 * Both are read at each use, never kept: a function taken under one test's fake clock would outlive
 * that clock. A fake made by @sinonjs/fake-timers (the engine of all three) carries its `clock`,
 * which keeps the function it replaced as `_<name>`; that may be an earlier clock's fake, so the
 * chain is followed to the real one.
 */

type Immediate = (callback: () => void) => unknown;
type Timeout = (callback: () => void, ms: number) => unknown;

interface MaybeFake {
  clock?: Record<string, unknown>;
}

/** How many fakes may stand on one another before the chain is taken for a loop. */
const MAX_FAKES = 10;

/** Whether `fn` is a fake made by @sinonjs/fake-timers (the engine of jest's, vitest's and sinon's). */
export const isFake = (fn: unknown): boolean => typeof (fn as MaybeFake | undefined)?.clock === 'object';

/** `fn` if it is real, else the function its fake clock replaced, followed down to a real one. */
function unfaked(fn: unknown, name: string): unknown {
  for (let depth = 0; depth < MAX_FAKES && isFake(fn); depth++) fn = (fn as MaybeFake).clock?.[`_${name}`];
  return typeof fn === 'function' && !isFake(fn) ? fn : undefined;
}

function real<T>(name: 'setImmediate' | 'setTimeout'): T {
  for (const fn of [timers[name], globalThis[name]]) {
    const found = unfaked(fn, name);
    if (found !== undefined) return found as T;
  }
  throw new Error(`axios-resilience/testing: cannot find the real ${name} under these fake timers`);
}

/** One turn of the real event loop: I/O that is ready is handled before this resolves. */
export function realTurn(): Promise<void> {
  const immediate = real<Immediate>('setImmediate');
  return new Promise((resolve) => void immediate(resolve));
}

/** Waits `ms` of real time (the event loop may sleep in its poll for I/O meanwhile). */
export function realSleep(ms: number): Promise<void> {
  const timeout = real<Timeout>('setTimeout');
  return new Promise((resolve) => void timeout(resolve, ms));
}
