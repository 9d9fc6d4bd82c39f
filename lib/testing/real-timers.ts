import * as timers from 'node:timers';

/**
 * The event loop's own `setImmediate` and `setTimeout`, for yielding to real I/O while fake timers
 * are installed. jest, vitest and @sinonjs/fake-timers replace the globals; @sinonjs/fake-timers
 * installed on Node's real global also replaces the exports of `node:timers` (jest's fake timers
 * fake a test file's own global, which never does; vitest's bundled copy cannot reach `node:timers`).
 * So the functions are taken when this module loads, normally before any test fakes anything,
 * and at each use the first that is not a fake is chosen; a fake made by @sinonjs/fake-timers (the
 * engine of all three) carries its `clock`, which keeps the function it replaced.
 */

type Immediate = (callback: () => void) => unknown;
type Timeout = (callback: () => void, ms: number) => unknown;

interface MaybeFake {
  clock?: Record<string, unknown>;
}

const atLoad = {
  setImmediate: [timers.setImmediate, globalThis.setImmediate] as unknown[],
  setTimeout: [timers.setTimeout, globalThis.setTimeout] as unknown[],
};

const isFake = (fn: unknown): boolean => typeof (fn as MaybeFake | undefined)?.clock === 'object';

function real<T>(name: 'setImmediate' | 'setTimeout'): T {
  const now = [timers[name], globalThis[name]] as unknown[];
  for (const fn of [...atLoad[name], ...now]) if (typeof fn === 'function' && !isFake(fn)) return fn as T;
  // Every copy is a fake: the clock that made it keeps the original as `_<name>`.
  for (const fn of now) {
    const original = (fn as MaybeFake).clock?.[`_${name}`];
    if (typeof original === 'function' && !isFake(original)) return original as T;
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
