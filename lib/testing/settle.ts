import { typed } from '../policy/validate';
import { fakeClock } from './fake-clock';
import type { FakeClock, FakeClockLike } from './fake-clock';
import { realSleep, realTurn } from './real-timers';
import { RequestsInFlight } from './requests-in-flight';

/** Bounds of `settle()`. */
export interface SettleOptions {
  /**
   * Fake time, in ms, the clock may be advanced before `settle()` gives up on the promise.
   * @default 600000 (ten minutes: six attempts with `maxDelayMs: 30000` between them fit many times)
   */
  maxFakeMs?: number;
  /**
   * How many times the clock may be advanced to its next timer before `settle()` gives up.
   * @default 10000
   */
  maxAdvances?: number;
  /**
   * Real time, in ms, that a request answered by no server in this process (a remote one, or nock)
   * may go unanswered, with nothing else happening, before the fake clock is advanced anyway (its
   * answer may be waiting for fake time: a nock `delay`, a timer of the mock). A request to a
   * `node:http` server in this process is not waited for: once that server has it and is idle, it
   * can only be waiting for the fake clock.
   * @default 50
   */
  ioGraceMs?: number;
}

/** Real event-loop turns in a row with nothing new before real work counts as done. */
const QUIET_TURNS = 10;
/** Turns in one wait for quiet at most: a loop that never rests (an immediate that sets another) still lets the clock move. */
const MAX_TURNS = 10_000;

const DEFAULTS: Required<SettleOptions> = { maxFakeMs: 600_000, maxAdvances: 10_000, ioGraceMs: 50 };

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Settles `promise` under fake timers and returns what it resolves to (or rejects with its error).
 * Between advances of the fake clock it lets real work finish: real sockets, nock's replies, and
 * what fake timers queue to run at once (fake `nextTick`s and immediates). When nothing real is
 * left to wait for, it advances the clock to its next timer (a backoff, a Retry-After, a timeout)
 * and fires it; it stops as soon as the promise settles. It gives up with an `Error` naming what
 * is still pending past `maxFakeMs` of fake time or `maxAdvances` advances, or at once when nothing
 * pending could ever settle it.
 *
 * Works with jest's modern fake timers in their default configuration (everything faked, `nextTick`
 * and `setImmediate` included), vitest's fake timers and @sinonjs/fake-timers: pass `jest`, `vi`
 * or the clock. The order in which sockets answer does not matter: the clock moves only when every
 * answer that can come has come.
 *
 * @example
 * jest.useFakeTimers();
 * const response = await settle(http.get('https://api.example.com/v1/items'), jest);
 * expect(response.config.retryState?.delaysMs).toEqual([250, 30_000]);
 */
export async function settle<T>(promise: PromiseLike<T>, clock: FakeClockLike, options?: SettleOptions): Promise<T> {
  if (typeof (promise as PromiseLike<T> | null | undefined)?.then !== 'function') {
    throw new TypeError(`axios-resilience/testing: settle() needs a promise first, got ${typed(promise)}`);
  }
  const fake = fakeClock(clock);
  const bounds = settleOptions(options);
  let outcome: Outcome<T> | undefined;
  promise.then(
    (value) => void (outcome = { ok: true, value }),
    (error: unknown) => void (outcome = { ok: false, error }),
  );
  const requests = new RequestsInFlight();
  try {
    const started = fake.now();
    for (let advances = 0; ; advances++) {
      await untilQuiet(fake, requests, bounds.ioGraceMs, () => outcome !== undefined);
      if (outcome !== undefined) break;
      const fakeMs = started === undefined ? undefined : (fake.now() ?? started) - started;
      const why = giveUpReason(fake, requests, bounds, advances, fakeMs);
      if (why !== undefined) throw stuck(fake, requests, why);
      await fake.next();
    }
  } finally {
    requests.stop();
  }
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/** Why settling stops here with the promise pending, or `undefined` to advance the clock once more. */
function giveUpReason(
  fake: FakeClock,
  requests: RequestsInFlight,
  bounds: Required<SettleOptions>,
  advances: number,
  fakeMs: number | undefined,
): string | undefined {
  if (fake.pending() === 0 && requests.size === 0) return 'no fake timer and no request is left that could settle it';
  if (advances < bounds.maxAdvances && (fakeMs ?? 0) < bounds.maxFakeMs) return undefined;
  const spent = `${fakeMs === undefined ? '' : `${fakeMs} ms of fake time and `}${advances} advances of the clock`;
  return `gave up after ${spent} (maxFakeMs ${bounds.maxFakeMs}, maxAdvances ${bounds.maxAdvances})`;
}

/**
 * Lets real work run until it is done: turns of the real event loop, each followed by what the fake
 * clock has due now, until `QUIET_TURNS` turns in a row change nothing (no timer set or fired, no
 * request sent or answered, no byte read or written on their sockets) and nothing is expected in
 * real time (for up to `ioGraceMs`).
 */
async function untilQuiet(
  fake: FakeClock,
  requests: RequestsInFlight,
  ioGraceMs: number,
  settled: () => boolean,
): Promise<void> {
  const signature = (): string => `${fake.pending()} ${requests.events} ${requests.bytes}`;
  let last = signature();
  let quiet = 0;
  let graceLeft = ioGraceMs;
  for (let turns = 0; turns < MAX_TURNS && !settled(); turns++) {
    await realTurn();
    await fake.flush();
    const now = signature();
    if (now !== last) {
      last = now;
      quiet = 0;
      graceLeft = ioGraceMs;
    } else if (++quiet >= QUIET_TURNS) {
      if (graceLeft <= 0 || !mayComeInRealTime(fake, requests)) return;
      // It comes in real time: sleep in the event loop's poll for it, a millisecond at a time.
      graceLeft--;
      await realSleep(1);
    }
  }
}

/** A request waits on a server elsewhere, or nothing at all is pending here (so only something real can come). */
function mayComeInRealTime(fake: FakeClock, requests: RequestsInFlight): boolean {
  return requests.awaitingElsewhere || (requests.size === 0 && fake.pending() === 0);
}

function stuck(fake: FakeClock, requests: RequestsInFlight, why: string): Error {
  const waiting = requests.describe();
  const timers = fake.pending();
  const pending = [
    `${timers} fake timer${timers === 1 ? '' : 's'}`,
    waiting.length === 0 ? 'no request waiting for an answer' : `requests waiting for an answer: ${waiting.join(', ')}`,
  ];
  return new Error(
    `axios-resilience/testing: settle(): the promise is still pending; ${why}. Pending: ${pending.join('; ')}`,
  );
}

function settleOptions(options: SettleOptions | undefined): Required<SettleOptions> {
  if (options === undefined) return DEFAULTS;
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`axios-resilience/testing: settle() options must be an object, got ${typed(options)}`);
  }
  const resolved = { ...DEFAULTS };
  for (const name of Object.keys(DEFAULTS) as Array<keyof SettleOptions>) {
    const value = options[name];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !(value >= 0) || value === Infinity) {
      throw new TypeError(
        `axios-resilience/testing: settle() option ${name} must be a finite number >= 0, got ${typed(value)}`,
      );
    }
    resolved[name] = value;
  }
  return resolved;
}
