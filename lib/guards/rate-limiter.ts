import { TurnQueue } from './turn-queue';
import type { Turn } from './turn-queue';
import type { LimiterState, RateLimitEvent, RateLimitPacing, RateLimiterView } from '../types';

/**
 * The adaptive rate limiter of one origin (or breaker key). It is off, and costs nothing, until the
 * origin throttles a call; then calls wait their turn in a FIFO queue, released at a rate that
 * follows what the server allows, and it switches itself off again once throttling stops.
 *
 * How the rate moves (an AIMD with slow start, paced rather than windowed):
 * - **engage**: at the first throttle the rate starts at the measured rate of answers since the
 *   limiter began counting, or a seed, and doubles every `STEP_MS` while calls queue (slow start);
 * - **cut**: a throttle of a call sent after the last cut sets the capacity estimate to the
 *   successes of the last second and cuts the rate to `BETA` of it (or halves it before a second
 *   was measured). Throttles of calls sent before the cut were caused by the old rate: a burst of
 *   429s cuts once;
 * - **grow**: while calls queue, the rate closes on the capacity quickly, then probes past it
 *   slowly (`PROBE`), so a server that allows more is found;
 * - **pause**: a `Retry-After` holds the whole queue until then; so does a spent quota's reset,
 *   once a refusal after the quota was said to be spent shows the reset is real (a token bucket
 *   that reports when it is full again refills long before): from then on every spent quota of
 *   this key holds it until its reset, so a fixed window draws no more refusals;
 * - **relax**: `RELAX_MS` without a throttle and an empty queue switch the limiter off.
 *
 * Pure of axios: times come from the injected clock. Its one timer runs only while a call waits
 * for its turn, and is referenced, as plain axios's pending socket is: a script whose last call
 * waits here stays alive until the call settles. The timer goes when the last waiting call leaves.
 */

/** What a limiter is told about a throttle. */
export interface Throttle {
  /** When the throttled attempt was sent (the clock's ms); earlier than the last cut means "already answered". */
  sentAt: number;
  /**
   * Hold the origin this long: a `Retry-After` (clamped to `maxDelayMs`), or a spent quota's reset
   * beyond `maxDelayMs` (not clamped: calls are then refused until it, see `heldForMs`).
   */
  pauseMs?: number | undefined;
  /** A rate the server's policy states, per second. */
  policyRate?: number | undefined;
  /**
   * A spent quota's reset (ms from now, within `maxDelayMs`), with no server wait: it holds the
   * origin once the key's resets are known to be real (see `confirmedReset`).
   */
  resetMs?: number | undefined;
}

export const STEP_MS = 100;
/** The rate a limiter starts from when it has measured nothing yet (per second). */
export const SEED_RATE = 20;
/** The share of the measured capacity a cut goes down to. */
export const BETA = 0.95;
/** How much of the gap to the capacity a step closes, and the growth per step past it. */
export const CLOSE = 0.3;
export const PROBE = 0.005;
/** Growth per step past the cut against a server that pauses callers: 0.2 % a second. */
export const GENTLE_PROBE = 0.0002;
/** Quiet time after which an idle limiter switches off. */
export const RELAX_MS = 5000;
/** The lowest rate a limiter paces at, per second: one call a second keeps probing the server. */
export const MIN_RATE = 1;
/** The share of a stated policy's rate the limiter paces at: a little under it, so the quota is not spent. */
export const POLICY_SHARE = 0.97;
export const WINDOW_MS = 1000;
/** A pause at least this long empties the success window, and makes probing gentle. */
export const LONG_PAUSE_MS = 2 * STEP_MS;
export const RECENT_STEPS = 3;

export class RateLimiter implements RateLimiterView {
  state: LimiterState = 'off';
  ratePerSecond = Infinity;
  pausedUntil = 0;
  /** The successes per second the server granted when it last throttled (`undefined` before a cut). */
  capacity: number | undefined;
  /** A ceiling the server's policy stated. */
  private ceiling = Infinity;
  private readonly turns = new TurnQueue();
  private nextAt = 0;
  private lastCutAt = -Infinity;
  private lastThrottleAt = -Infinity;
  private lastStepAt = 0;
  /** Steps spent probing past the capacity since the last cut: each probes a little further. */
  private probeSteps = 0;
  private gentle = false;
  private pauseEndedAt = 0;
  private engagedAt = 0;
  /**
   * A spent quota's reset heard, not yet confirmed: a refusal of a call sent from `confirmsFrom`
   * on, before `until`, confirms it (cleared by any success that does not say the quota is spent).
   */
  private spent: { confirmsFrom: number; until: number } | undefined;
  /** This key's resets proved real once: a spent quota now holds it until its reset at once. */
  private resetsHold = false;
  /** Successes in the last second, in `STEP_MS` buckets; `bucketAt` is the start of `buckets[0]`. */
  private readonly buckets = new Array<number>(WINDOW_MS / STEP_MS).fill(0);
  private bucketAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly key: string,
    private readonly now: () => number,
    private readonly maxQueue: number,
    private readonly onChange?: (event: RateLimitEvent) => void,
    /**
     * The fleet's send times, when the limiter is shared (`rateLimit.shared`): while `active`, the
     * limiter keeps its queue, bound and on/off state but releases calls at the times it holds; what
     * it observes (successes, throttles, a policy's rate) goes to the fleet too.
     */
    private readonly pacing?: RateLimitPacing,
  ) {}

  /** The queue is at its bound. */
  get full(): boolean {
    return this.queued >= this.maxQueue;
  }

  get queued(): number {
    return this.turns.length;
  }

  /** The view `plugin.limiter()` hands out (a copy: the limiter's fields are not the caller's to set). */
  view(): RateLimiterView {
    const by = this.state === 'on' && this.pacing?.active ? this.pacing : this;
    return { state: this.state, ratePerSecond: by.ratePerSecond, queued: this.queued, pausedUntil: by.pausedUntil };
  }

  /**
   * How long a call asking now would wait for its turn (ms), by the current rate and queue; 0 when
   * it would go at once.
   */
  expectedWaitMs(): number {
    if (this.state === 'off') return 0;
    const now = this.now();
    if (this.pacing?.active) return this.pacing.expectedWaitMs(this.queued, now);
    const start = Math.max(now, this.nextAt, this.pausedUntil);
    return start - now + (this.queued * 1000) / this.ratePerSecond;
  }

  /**
   * A turn for one attempt: `'go'` at once (returned synchronously) when it may go now, else a
   * promise of the turn and a `cancel` that gives the place up (the call was aborted). `'full'`:
   * the queue is at its bound.
   */
  acquire(): Turn | { turn: Promise<Turn>; cancel: () => void } {
    if (this.state === 'off') return 'go';
    const now = this.now();
    this.maybeRelax(now);
    if ((this.state as LimiterState) === 'off') return 'go';
    // A shared limiter's rate moves in the store; the local one stands, for when the store is down.
    if (!this.pacing?.active) this.grow(now);
    if (this.queued === 0 && this.due(now)) {
      this.spend(now);
      return 'go';
    }
    if (this.queued >= this.maxQueue) return 'full';
    const place = this.turns.join();
    this.schedule(now);
    return {
      turn: place.turn,
      cancel: () => {
        place.cancel();
        // The last waiting call gave up: nothing may hold the process for a turn nobody takes.
        if (this.queued === 0) this.schedule(this.now());
      },
    };
  }

  /** A successful answer (only counted while on: off, nothing is measured, and nothing costs). */
  succeeded(): void {
    if (this.state === 'off') return;
    this.pacing?.succeeded();
    const now = this.now();
    this.spent = undefined;
    this.roll(now);
    this.buckets[this.buckets.length - 1]! += 1;
    this.maybeRelax(now);
  }

  /** The server throttled an attempt (a 429, a 503 with `Retry-After`, or a spent quota). */
  throttled(throttle: Throttle): void {
    const now = this.now();
    this.lastThrottleAt = now;
    if (throttle.policyRate !== undefined) this.ceiling = throttle.policyRate * POLICY_SHARE;
    const pauseMs = this.confirmedReset(now, throttle) ?? throttle.pauseMs;
    // The fleet hears it first, so the send times this limiter then asks for follow the report.
    this.pacing?.throttled({ sentAt: throttle.sentAt, pauseMs, policyRate: throttle.policyRate }, now);
    if (this.state === 'off') {
      this.engage(now, pauseMs);
      return;
    }
    if (throttle.sentAt < this.lastCutAt) return;
    this.roll(now);
    const measured = this.measured(now);
    // Without a second of answers to measure (a pause just ended), the last estimate stands.
    if (measured !== undefined) this.capacity = measured;
    // Never above BETA of the rate that drew the throttle: a noisy estimate cannot make a cut a raise.
    const cut = this.capacity === undefined ? this.ratePerSecond / 2 : this.capacity * BETA;
    this.ratePerSecond = Math.max(MIN_RATE, Math.min(this.ratePerSecond * BETA, cut, this.ceiling));
    this.lastCutAt = now;
    this.probeSteps = 0;
    // A server that pauses callers makes every probe past its limit cost the pause: probe gently.
    this.gentle = pauseMs !== undefined && pauseMs >= LONG_PAUSE_MS;
    this.pause(now, pauseMs);
    this.schedule(now);
  }

  /**
   * The hold a spent quota's reset earns. A token bucket that reports when it is full again refills
   * long before that, and a reset in whole seconds can be a second late, so a reset is only noted
   * until the server shows it means it: a call sent after the quota was said to be spent (after a
   * success said so, or a step, `STEP_MS`, after a refusal did: one burst's refusals prove nothing),
   * refused before the reset with no success in between. The key then holds until the reset, and
   * from then on its resets hold it at once.
   */
  private confirmedReset(now: number, throttle: Throttle): number | undefined {
    if (throttle.resetMs === undefined) return undefined;
    const spent = this.spent;
    if (this.resetsHold || (spent !== undefined && now < spent.until && throttle.sentAt >= spent.confirmsFrom)) {
      this.resetsHold = true;
      return throttle.resetMs;
    }
    if (spent === undefined || now >= spent.until)
      this.spent = { confirmsFrom: now + STEP_MS, until: now + throttle.resetMs };
    return undefined;
  }

  /**
   * A success said the quota is spent, with no rate stated. The pace is at the server's limit, so it
   * does not grow for a step (a refusal, not this, cuts it: a bucket drained to its last token is no
   * sign the pace is too fast). With its reset: a key whose resets proved real holds until it (a
   * fixed window then draws no refusal); otherwise the next refusal before it confirms it.
   */
  spentOnSuccess(hold: Pick<Throttle, 'pauseMs' | 'resetMs'>): void {
    const now = this.now();
    this.lastStepAt = Math.max(this.lastStepAt, now);
    // Spent for longer than any wait (`pauseMs` with no reset to confirm): believed at once.
    const pauseMs = hold.resetMs === undefined ? hold.pauseMs : this.resetsHold ? hold.resetMs : undefined;
    if (pauseMs !== undefined) {
      this.pause(now, pauseMs);
      this.schedule(now);
    } else if (hold.resetMs !== undefined) {
      this.spent = { confirmsFrom: now, until: now + hold.resetMs };
    }
  }

  /** How long this key is held from now (a server's pause, a spent quota's reset); 0 when it is not. */
  heldForMs(): number {
    const by = this.pacing?.active ? this.pacing : this;
    return Math.max(0, by.pausedUntil - this.now());
  }

  /** The server's policy states its rate (a `RateLimit-Policy`): pace to it while on. */
  hinted(policyRate: number | undefined): void {
    if (this.state === 'off') return;
    this.pacing?.hinted(policyRate);
    if (policyRate !== undefined) {
      this.ceiling = policyRate * POLICY_SHARE;
      this.capacity ??= this.ceiling;
      this.ratePerSecond = Math.min(this.ratePerSecond, this.ceiling);
    }
    this.schedule(this.now());
  }

  /** The fleet engaged this origin (another process was throttled): turn on too, and report nothing back. */
  join(): void {
    if (this.state !== 'off') return;
    const now = this.now();
    this.lastThrottleAt = now;
    this.engage(now, undefined);
  }

  /** Lets every waiting call go and stops the timer (the plugin closed or the entry was evicted). */
  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.pacing?.close();
    this.turns.letAllGo();
  }

  private engage(now: number, pauseMs: number | undefined): void {
    this.state = 'on';
    this.engagedAt = now;
    this.lastCutAt = now;
    this.lastStepAt = now;
    this.buckets.fill(0);
    this.bucketAt = now - WINDOW_MS + STEP_MS;
    this.nextAt = now;
    this.ratePerSecond = Math.min(SEED_RATE, this.ceiling);
    this.capacity = this.ceiling === Infinity ? undefined : this.ceiling;
    this.pause(now, pauseMs);
    this.onChange?.({ origin: this.key, state: 'engaged', ratePerSecond: this.ratePerSecond });
  }

  private pause(now: number, pauseMs: number | undefined): void {
    if (pauseMs === undefined || !(pauseMs > 0)) return;
    this.pausedUntil = Math.max(this.pausedUntil, now + pauseMs);
    // A hold of one call's share of a policy's window (ms) is no gap in the measurement; a longer one is.
    if (pauseMs >= LONG_PAUSE_MS) this.pauseEndedAt = this.pausedUntil;
  }

  /** Successes per second over the last second (since engaging, and out of a pause), once half a second was measured. */
  private measured(now: number): number | undefined {
    const since = now - Math.max(this.engagedAt, this.pauseEndedAt);
    if (since < 2 * STEP_MS) return undefined;
    // The last second, and the last RECENT_STEPS steps: in slow start the rate grew through the
    // second, and only its end says what the server grants.
    const rateOver = (steps: number): number => {
      const span = Math.min(steps * STEP_MS, since);
      const counted = Math.min(this.buckets.length, Math.ceil(span / STEP_MS) + 1);
      let sum = 0;
      for (let i = this.buckets.length - counted; i < this.buckets.length; i++) sum += this.buckets[i]!;
      // The current bucket is partly filled: the span runs to its start plus the time into it.
      const into = now - (this.bucketAt + (this.buckets.length - 1) * STEP_MS);
      return (sum * 1000) / Math.max(STEP_MS, Math.min(since, (counted - 1) * STEP_MS + into));
    };
    // Past slow start a short window would read the burst a server grants after a pause as its rate.
    if (this.capacity !== undefined) return since < WINDOW_MS / 2 ? undefined : rateOver(this.buckets.length);
    return Math.max(rateOver(this.buckets.length), rateOver(RECENT_STEPS));
  }

  /** Moves the success window on to `now`. */
  private roll(now: number): void {
    const steps = Math.floor((now - this.bucketAt) / STEP_MS) - (this.buckets.length - 1);
    if (steps <= 0) return;
    const n = Math.min(steps, this.buckets.length);
    this.buckets.splice(0, n);
    for (let i = 0; i < n; i++) this.buckets.push(0);
    this.bucketAt += steps * STEP_MS;
  }

  /** Raises the rate for the steps since the last, while calls queue (demand above the rate). */
  private grow(now: number): void {
    // Time in a pause is no evidence the server allows more.
    if (now < this.pausedUntil) {
      this.lastStepAt = now;
      return;
    }
    this.lastStepAt = Math.max(this.lastStepAt, this.pauseEndedAt);
    const steps = Math.floor((now - this.lastStepAt) / STEP_MS);
    if (steps <= 0) return;
    this.lastStepAt += steps * STEP_MS;
    if (this.queued === 0) return;
    let rate = this.ratePerSecond;
    for (let i = 0; i < Math.min(steps, 50); i++) {
      const capacity = this.capacity;
      // Against a server that pauses callers every probe past its limit costs the whole pause, so
      // the rate closes only on what the cut left (BETA of the capacity) and then creeps.
      const target = capacity === undefined ? undefined : capacity * (this.gentle ? BETA : 0.98);
      if (target === undefined) rate *= 2;
      else if (rate < target) rate = Math.min(target, rate + (target - rate) * CLOSE + 0.5);
      else rate *= 1 + (this.gentle ? GENTLE_PROBE : PROBE * ++this.probeSteps);
    }
    this.ratePerSecond = Math.min(rate, this.ceiling);
  }

  /**
   * One call goes now: the next may go one interval later. A timer that fired late keeps up to one
   * interval of credit (else every late timer would slow the rate), and no more (idle time is no
   * licence for a burst); nor does a pause that just ended.
   */
  private spend(now: number): void {
    if (this.pacing?.active) return this.pacing.use();
    const interval = 1000 / this.ratePerSecond;
    this.nextAt = Math.max(this.nextAt, now - interval, this.pauseEndedAt) + interval;
  }

  private schedule(now: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.pacing?.want(this.queued, this.wake);
    if (this.queued === 0) return;
    const at = this.pacing?.active ? this.pacing.next(now) : Math.max(this.nextAt, this.pausedUntil);
    // Shared, with no send time held yet: the store's answer (or the pacing's own timer) wakes the queue.
    if (at === undefined) return;
    // Referenced: a waiting call is work its caller awaits, and a pending promise keeps no process alive.
    this.timer = setTimeout(this.release, Math.max(0, at - now));
  }

  private readonly release = (): void => {
    this.timer = undefined;
    const now = this.now();
    if (!this.pacing?.active) this.grow(now);
    if (now >= this.pausedUntil) this.pausedUntil = 0;
    while (this.queued > 0 && this.due(now)) {
      // A place given up spends no turn.
      if (this.turns.letFirstGo()) this.spend(now);
    }
    this.maybeRelax(now);
    this.schedule(now);
  };

  /** The shared schedule's answer came (or the store went away): release and reschedule. */
  private readonly wake = (): void => {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.release();
  };

  /**
   * The next call may go now: by the fleet's send times while shared (the fleet's pause is in them:
   * a throttle the fleet ignored as one of a burst holds no process), else by the limiter's rate and pause.
   */
  private due(now: number): boolean {
    if (!this.pacing?.active) return now >= this.nextAt && now >= this.pausedUntil;
    const next = this.pacing.next(now);
    return next !== undefined && now >= next;
  }

  private maybeRelax(now: number): void {
    if (this.queued > 0 || now - this.lastThrottleAt < RELAX_MS || now < this.pausedUntil) return;
    // The fleet is still throttled (another process saw the last throttle): stay on with it.
    if (this.pacing?.active && now < this.pacing.onUntil) return;
    this.state = 'off';
    this.ratePerSecond = Infinity;
    this.capacity = undefined;
    this.ceiling = Infinity;
    this.pausedUntil = 0;
    this.onChange?.({ origin: this.key, state: 'relaxed', ratePerSecond: Infinity });
  }
}
