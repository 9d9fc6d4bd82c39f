import { TurnQueue } from './turn-queue';
import type { Turn } from './turn-queue';
import { atLimit, engaged, paused, throttle, withPolicy } from './rate-rule';
import { admitted, nextSendAt, waitMs } from './rate-pace';
import { counted, serving } from './rate-count';
import { RATE_RULE } from './rate-state';
import type { RateState } from './rate-state';
import { WindowQuota } from './refill-evidence';
import type { QuotaWord } from './refill-evidence';
import type { LimiterState, PacingThrottle, RateLimitEvent, RateLimitPacing, RateLimiterView } from '../types';

/**
 * The adaptive rate limiter of one rate-limit scope (a route, a model, a quota the server names, an
 * origin; or a `rateLimit.key`). Off, and free, until the scope is throttled with a hint or its bare
 * refusals show the rate is the cause (`bare-refusals.ts`); then calls wait their turn in a FIFO
 * queue, released at the send times its pace grants (`rate-pace.ts`: the rule's, `rate-rule.ts`, or
 * the fleet's), and it switches off once throttling stops (`relaxMs` without a throttle, the queue
 * empty). A hold (a spent quota's reset, a long server wait) holds the whole queue until then.
 *
 * Pure of axios: times come from the injected clock. Its one timer runs only while a call waits,
 * and is referenced, as plain axios's pending socket is: a script whose last call waits here stays
 * alive until the call settles. The timer goes when the last waiting call leaves.
 */

export class RateLimiter implements RateLimiterView {
  state: LimiterState = 'off';
  /** The rule's state while on. */
  private rule: RateState | undefined;
  private readonly turns = new TurnQueue();
  private lastThrottleAt = -Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly window = new WindowQuota();
  /** The origin and the scope within it that the key names (`scopeOf`: the origin, a space, the scope), for events and views. */
  readonly where: { origin: string; scope?: string };

  constructor(
    readonly key: string,
    private readonly now: () => number,
    private readonly maxQueue: number,
    private readonly onChange?: (event: RateLimitEvent) => void,
    /** The fleet's send times, when shared (`rateLimit.shared`); what the limiter observes goes to the fleet too. */
    private readonly pacing?: RateLimitPacing,
  ) {
    const scoped = /^([a-z][a-z0-9+.-]*:\/\/[^ ]*) (.+)$/.exec(key);
    this.where = scoped === null ? { origin: key } : { origin: scoped[1]!, scope: scoped[2]! };
  }

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
    const { state, queued } = this;
    const view = { state, ratePerSecond: by.ratePerSecond, queued, pausedUntil: by.pausedUntil };
    return this.where.scope === undefined ? view : { ...view, scope: this.where.scope };
  }

  /** How long a call asking now would wait for its turn (ms), by the pace and queue; 0 when it would go at once. */
  expectedWaitMs(now = this.now()): number {
    const rule = this.rule;
    return rule === undefined ? 0 : waitMs(rule, this.pacing, this.queued, now, this.window.heldUntil(now));
  }

  /**
   * A turn for one attempt: `'go'` at once (synchronously) when it may go now, `'full'` at the queue's
   * bound, else a promise of the turn and a `cancel` that gives the place up (the call was aborted).
   */
  acquire(): Turn | { turn: Promise<Turn>; cancel: () => void } {
    if (this.state === 'off') return 'go';
    const now = this.now();
    this.maybeRelax(now);
    if (this.rule === undefined) return 'go';
    if (this.queued === 0 && this.goesNow(now)) return 'go';
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
    this.rule = counted(this.rule, now, 1);
    this.maybeRelax(now);
  }

  /**
   * The server throttled an attempt (a 429, a 503 with `Retry-After`, or a spent quota). `pauseMs`
   * holds the scope (the gate's `holdOf`): a spent quota's reset (past `maxDelayMs` not clamped: calls
   * are then refused until it, see `heldForMs`), or a long server wait.
   */
  throttled(told: PacingThrottle, now = this.now()): void {
    this.lastThrottleAt = now;
    const report = { ...told, policyRate: this.policyOf(told.policyRate) };
    // The fleet hears it first, so the send times this limiter then asks for follow the report.
    this.pacing?.throttled(report, now);
    const off = this.rule === undefined;
    this.rule = throttle(this.rule, now, { ...report, graceMs: 0, successes: 0 });
    if (off) this.engage();
    this.schedule(now);
  }

  /**
   * A success said the quota is spent: the pace is at the server's limit, so it does not grow for a step
   * (a bucket drained to its last token is no sign it is too fast), and the scope is held for `pauseMs`.
   */
  spentOnSuccess(hold: Pick<PacingThrottle, 'pauseMs'>): void {
    if (this.rule === undefined) return;
    const now = this.now();
    this.rule = atLimit(this.rule, now);
    if (hold.pauseMs !== undefined) {
      this.rule = paused(this.rule, now, hold.pauseMs);
      this.schedule(now);
    }
  }

  /** The scope is being served (`rate-count.ts`): its refusals are load, not a server refusing all. */
  serving(now = this.now()): boolean {
    return this.rule !== undefined && serving(this.rule, now);
  }

  /** How long this key is held from now (a server's pause, a spent quota's reset); 0 when it is not. */
  heldForMs(now = this.now()): number {
    return Math.max(0, (this.pacing?.active ? this.pacing.pausedUntil : (this.rule?.pausedUntil ?? 0)) - now);
  }

  /** What an answer said of the quota (`WindowQuota`): a fixed window's count gates the calls; a refilling limiter paces. */
  heard(word: QuotaWord, counted: boolean): void {
    this.window.heard(word, counted);
  }

  /** Whether a hold of `holdMs` an answer asks for only paces this scope: its limiter refills (`refill-evidence.ts`). */
  pacesInstead(holdMs: number): boolean {
    return this.window.pacesInstead(holdMs);
  }

  /** The server's policy states its rate (a `RateLimit-Policy`), or its window's answers do: pace to it while on. */
  hinted(stated: number | undefined): void {
    if (this.rule === undefined) return;
    const policyRate = this.policyOf(stated);
    this.pacing?.hinted(policyRate);
    if (policyRate !== undefined) this.rule = withPolicy(this.rule, policyRate);
    this.schedule(this.now());
  }

  /** The fleet engaged this key (another process was throttled): turn on too, and report nothing back. */
  join(): void {
    if (this.rule !== undefined) return;
    const now = this.now();
    this.lastThrottleAt = now;
    this.rule = engaged(now, Infinity, undefined);
    this.engage();
  }

  /** The rate a policy states, else the one the scope's fixed window showed (`WindowQuota`), if any. */
  private readonly policyOf = (stated?: number): number | undefined => stated ?? this.window.ratePerSecond;

  /** Lets every waiting call go and stops the timer (the plugin closed or the entry was evicted). */
  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.pacing?.close();
    this.turns.letAllGo();
  }

  private engage(): void {
    this.state = 'on';
    this.onChange?.({ ...this.where, state: 'engaged', ratePerSecond: this.rule!.ratePerSecond });
  }

  /** Whether one call may go now, taking its send time if so: not while a window's quota is spent (`heard`), then by the pace. */
  private goesNow(now: number): boolean {
    if (this.window.heldUntil(now) > 0) return false;
    const { rule, go } = admitted(this.rule, this.pacing, now, this.queued > 0);
    this.rule = rule;
    if (go) this.window.sent(now);
    return go;
  }

  private schedule(now: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.pacing?.want(this.queued, this.wake);
    if (this.queued === 0 || this.rule === undefined) return;
    const paced = nextSendAt(this.rule, this.pacing, now);
    // Shared, with no send time held yet: the store's answer (or the pacing's own timer) wakes the queue.
    if (paced === undefined) return;
    const at = Math.max(paced, this.window.heldUntil(now));
    // Referenced: a waiting call is work its caller awaits, and a pending promise keeps no process alive.
    this.timer = setTimeout(this.release, Math.max(0, at - now));
  }

  private readonly release = (): void => {
    this.timer = undefined;
    const now = this.now();
    // A place given up takes no send time: it is skipped before one is taken for the next.
    while (this.turns.hasWaiting() && this.goesNow(now)) this.turns.letFirstGo();
    this.maybeRelax(now);
    this.schedule(now);
  };

  /** The shared schedule's answer came (or the store went away): release and reschedule. */
  private readonly wake = (): void => {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.release();
  };

  private maybeRelax(now: number): void {
    const rule = this.rule;
    if (rule === undefined || this.queued > 0 || now < rule.pausedUntil) return;
    if (now - this.lastThrottleAt < RATE_RULE.relaxMs) return;
    // The fleet is still throttled (another process saw the last throttle): stay on with it.
    if (this.pacing?.active && now < this.pacing.onUntil) return;
    this.state = 'off';
    this.rule = undefined;
    this.onChange?.({ ...this.where, state: 'relaxed', ratePerSecond: Infinity });
  }
}
