import { QuotaResets } from './quota-resets';
import { TurnQueue } from './turn-queue';
import type { Turn } from './turn-queue';
import { atLimit, booked, counted, engaged, grown, paused, RATE_RULE, throttled, withPolicy } from './rate-rule';
import type { RateState } from './rate-rule';
import type { LimiterState, RateLimitEvent, RateLimitPacing, RateLimiterView } from '../types';

/**
 * The adaptive rate limiter of one rate-limit key (the origin by default). It is off, and costs
 * nothing, until the key is throttled; then calls wait their turn in a FIFO queue, released at the
 * send times the rate rule (`rate-rule.ts`) grants, and it switches itself off again once throttling
 * stops (`relaxMs` without a throttle, with an empty queue). What it adds to the rule is the
 * process's part: the queue and its timer, the fleet's pacing when shared, and the quota's resets
 * (`quota-resets.ts`). A server's `Retry-After` holds the whole queue until then, and so does a spent
 * quota's reset once `QuotaResets` believes it.
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
  /** Nothing but the status said it was a throttle: no wait, no quota, no policy (see `RATE_RULE.noise`). */
  hintless?: boolean | undefined;
}

export class RateLimiter implements RateLimiterView {
  state: LimiterState = 'off';
  /** The rule's state while on. */
  private rule: RateState | undefined;
  private readonly turns = new TurnQueue();
  private lastThrottleAt = -Infinity;
  /** When a spent quota's reset holds the key. */
  private readonly resets = new QuotaResets();
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

  get ratePerSecond(): number {
    return this.rule?.ratePerSecond ?? Infinity;
  }

  /** Until when a server's pause holds the key (0: it does not). */
  get pausedUntil(): number {
    const until = this.rule?.pausedUntil ?? 0;
    return until > this.now() ? until : 0;
  }

  /** The successes per second the server granted when it last throttled (`undefined` before a cut). */
  get capacity(): number | undefined {
    return this.rule?.capacity;
  }

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
  expectedWaitMs(now = this.now()): number {
    const rule = this.rule;
    if (rule === undefined) return 0;
    if (this.pacing?.active) return this.pacing.expectedWaitMs(this.queued, now);
    const start = Math.max(now, rule.nextAt, rule.pausedUntil);
    return start - now + (this.queued * 1000) / rule.ratePerSecond;
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
    if (this.rule === undefined) return 'go';
    // A shared limiter's rate moves in the store; the local one stands, for when the store is down.
    if (!this.pacing?.active) this.rule = grown(this.rule, now, this.queued > 0);
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
    if (this.rule === undefined) return;
    this.pacing?.succeeded();
    const now = this.now();
    this.resets.succeeded();
    this.rule = counted(this.rule, now, 1);
    this.maybeRelax(now);
  }

  /** The server throttled an attempt (a 429, a 503 with `Retry-After`, or a spent quota). */
  throttled(throttle: Throttle, now = this.now()): void {
    this.lastThrottleAt = now;
    const reset = this.resets.refused(now, throttle.sentAt, throttle.resetMs);
    const pauseMs = reset?.holdMs ?? throttle.pauseMs;
    // The fleet hears it first, so the send times this limiter then asks for follow the report. A
    // reset this process believes is checked against the fleet's successes since the quota was said
    // spent (now, if no such word stands: then it holds nobody yet).
    const { sentAt, policyRate, hintless } = throttle;
    const spentAt = reset === undefined ? undefined : (reset.spentAt ?? now);
    this.pacing?.throttled({ sentAt, pauseMs, policyRate, spentAt, hintless }, now);
    if (this.rule === undefined) {
      const ceiling = throttle.policyRate === undefined ? Infinity : throttle.policyRate * RATE_RULE.policyShare;
      this.engage(now, engaged(now, ceiling, pauseMs));
      return;
    }
    const rule = throttle.policyRate === undefined ? this.rule : withPolicy(this.rule, throttle.policyRate);
    this.rule = throttled(rule, now, { sentAt, pauseMs, graceMs: 0, hintless });
    this.schedule(now);
  }

  /**
   * A success said the quota is spent, with no rate stated. The pace is at the server's limit, so it
   * does not grow for a step (a refusal, not this, cuts it: a bucket drained to its last token is no
   * sign the pace is too fast). Its reset holds the key as `QuotaResets` says.
   */
  spentOnSuccess(hold: Pick<Throttle, 'pauseMs' | 'resetMs'>): void {
    if (this.rule === undefined) return;
    const now = this.now();
    this.rule = atLimit(this.rule, now);
    // Spent for longer than any wait (`pauseMs` with no reset to confirm): believed at once.
    const pauseMs = hold.resetMs === undefined ? hold.pauseMs : this.resets.spentOnSuccess(now, hold.resetMs);
    if (pauseMs !== undefined) {
      this.rule = paused(this.rule, now, pauseMs);
      this.schedule(now);
    }
  }

  /** How long this key is held from now (a server's pause, a spent quota's reset); 0 when it is not. */
  heldForMs(now = this.now()): number {
    const until = this.pacing?.active ? this.pacing.pausedUntil : (this.rule?.pausedUntil ?? 0);
    return Math.max(0, until - now);
  }

  /** The server's policy states its rate (a `RateLimit-Policy`): pace to it while on. */
  hinted(policyRate: number | undefined): void {
    if (this.rule === undefined) return;
    this.pacing?.hinted(policyRate);
    if (policyRate !== undefined) this.rule = withPolicy(this.rule, policyRate);
    this.schedule(this.now());
  }

  /** The fleet engaged this key (another process was throttled): turn on too, and report nothing back. */
  join(): void {
    if (this.rule !== undefined) return;
    const now = this.now();
    this.lastThrottleAt = now;
    this.engage(now, engaged(now, Infinity, undefined));
  }

  /** Lets every waiting call go and stops the timer (the plugin closed or the entry was evicted). */
  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.pacing?.close();
    this.turns.letAllGo();
  }

  private engage(now: number, rule: RateState): void {
    this.state = 'on';
    this.rule = rule;
    this.onChange?.({ origin: this.key, state: 'engaged', ratePerSecond: rule.ratePerSecond });
  }

  /** One call goes now: its send time is spent (the fleet's, while shared). */
  private spend(now: number): void {
    if (this.pacing?.active) return this.pacing.use();
    if (this.rule !== undefined) this.rule = booked(this.rule, now, 1, 0).state;
  }

  private schedule(now: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.pacing?.want(this.queued, this.wake);
    if (this.queued === 0 || this.rule === undefined) return;
    const at = this.pacing?.active ? this.pacing.next(now) : Math.max(this.rule.nextAt, this.rule.pausedUntil);
    // Shared, with no send time held yet: the store's answer (or the pacing's own timer) wakes the queue.
    if (at === undefined) return;
    // Referenced: a waiting call is work its caller awaits, and a pending promise keeps no process alive.
    this.timer = setTimeout(this.release, Math.max(0, at - now));
  }

  private readonly release = (): void => {
    this.timer = undefined;
    const now = this.now();
    if (this.rule !== undefined && !this.pacing?.active) this.rule = grown(this.rule, now, this.queued > 0);
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
   * a throttle the fleet ignored as one of a burst holds no process), else by the rule's.
   */
  private due(now: number): boolean {
    if (this.pacing?.active) {
      const next = this.pacing.next(now);
      return next !== undefined && now >= next;
    }
    return this.rule === undefined || (now >= this.rule.nextAt && now >= this.rule.pausedUntil);
  }

  private maybeRelax(now: number): void {
    const rule = this.rule;
    if (rule === undefined || this.queued > 0 || now < rule.pausedUntil) return;
    if (now - this.lastThrottleAt < RATE_RULE.relaxMs) return;
    // The fleet is still throttled (another process saw the last throttle): stay on with it.
    if (this.pacing?.active && now < this.pacing.onUntil) return;
    this.state = 'off';
    this.rule = undefined;
    this.onChange?.({ origin: this.key, state: 'relaxed', ratePerSecond: Infinity });
  }
}
