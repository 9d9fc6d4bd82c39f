import type { RateLimitGrant, RateLimitPacing, RateLimitSchedule } from '../types';

/**
 * A limiter's send times taken from the fleet's shared schedule (`rateLimit.shared`), over any
 * `RateLimitSchedule` (`redisRateLimitStore` is one; another store can reuse this). The local
 * limiter keeps its queue, bound and on/off state; this asks the store for send times for the calls
 * waiting (one request at a time, for every waiting call not yet covered) and reports throttles to it.
 * Successes are counted here and handed over with the next request, so they cost no round trip.
 *
 * Times in the store's replies are in its clock; `offset` (store minus local, from each reply,
 * taken at the middle of its round trip) converts them.
 */
export class SharedPacing implements RateLimitPacing {
  ratePerSecond = Infinity;
  pausedUntil = 0;
  onUntil = 0;
  /** Local send times held, oldest first. */
  private slots: number[] = [];
  private intervalMs = 0;
  /** A request is out, or the schedule is booked ahead and `timer` asks again. */
  private pending = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private successes = 0;
  private policyRate: number | undefined;
  private closed = false;
  private wake: () => void = () => undefined;

  constructor(
    private readonly key: string,
    private readonly store: RateLimitSchedule,
    private readonly now: () => number,
  ) {}

  get active(): boolean {
    return !this.closed && this.store.usable();
  }

  next(now: number): number | undefined {
    // A send time left unused for long (its call gave up) is not spent late: that would be a burst.
    // One booked before the fleet paused falls in the pause.
    const from = Math.max(now - STALE_MS, this.pausedUntil);
    while (this.slots.length > 0 && this.slots[0]! < from) this.slots.shift();
    return this.slots[0];
  }

  use(): void {
    this.slots.shift();
  }

  want(waiting: number, wake: () => void): void {
    this.wake = wake;
    if (waiting === 0) return this.stopAsking();
    const missing = waiting - this.slots.length;
    if (missing <= 0 || this.pending || !this.active) return;
    this.pending = true;
    const asked = this.now();
    const successes = this.successes;
    this.successes = 0;
    this.store.take(this.key, missing, successes, this.policyRate).then(
      (grant) => this.granted(grant, asked, missing),
      () => this.granted(undefined, asked, missing),
    );
  }

  expectedWaitMs(queued: number, now: number): number {
    const last = this.slots[Math.min(queued, this.slots.length) - 1] ?? now;
    return Math.max(0, last - now) + Math.max(0, queued - this.slots.length) * this.intervalMs;
  }

  /** An answer of the throttled origin that is not a throttle (counted for the fleet's measured rate). */
  succeeded(): void {
    this.successes++;
  }

  /** The server's policy states its rate: the fleet paces to it (sent with the next request). */
  hinted(policyRate: number | undefined): void {
    if (policyRate !== undefined) this.policyRate = policyRate;
  }

  /**
   * A throttle this process saw: the fleet engages, or cuts its rate once per burst, and pauses.
   * The fleet decides (a throttle of a burst it already answered holds nobody); the send times this
   * process holds that fall in the fleet's pause are dropped when its answer comes.
   */
  throttled(
    throttle: { sentAt: number; pauseMs?: number | undefined; policyRate?: number | undefined },
    now: number,
  ): void {
    if (throttle.policyRate !== undefined) this.policyRate = throttle.policyRate;
    if (!this.active) return;
    const successes = this.successes;
    this.successes = 0;
    const report = {
      ageMs: Math.max(0, now - throttle.sentAt),
      pauseMs: throttle.pauseMs,
      policyRate: this.policyRate,
    };
    this.store.throttle(this.key, report, successes).then(
      (state) => {
        if (state === undefined || this.closed) return;
        const offset = state.now - (now + this.now()) / 2;
        this.ratePerSecond = state.ratePerSecond;
        this.pausedUntil = state.pausedUntil > state.now ? state.pausedUntil - offset : 0;
      },
      () => undefined,
    );
  }

  close(): void {
    this.closed = true;
    this.stopAsking();
    this.slots = [];
  }

  /** No call waits any more: a re-ask booked for later is dropped (a request already out is left to land). */
  private stopAsking(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = false;
  }

  private granted(grant: RateLimitGrant | undefined, asked: number, missing: number): void {
    if (this.closed) return;
    if (grant === undefined) {
      // The store did not answer: the limiter paces alone until it does.
      this.pending = false;
      this.slots = [];
      this.wake();
      return;
    }
    const offset = grant.now - (asked + this.now()) / 2;
    this.ratePerSecond = grant.ratePerSecond;
    this.pausedUntil = grant.pausedUntil > grant.now ? grant.pausedUntil - offset : 0;
    this.onUntil = grant.state === 'on' ? grant.relaxAt - offset : 0;
    this.intervalMs = grant.intervalMs;
    for (let i = 0; i < grant.granted; i++) this.slots.push(grant.first + i * grant.intervalMs - offset);
    if (grant.granted < missing) {
      // Booked ahead: ask again when the schedule has room, not at once. Referenced, as the
      // limiter's own timer is: calls wait on it (`want(0)` drops it once none does).
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          this.pending = false;
          this.wake();
        },
        Math.max(1, grant.retryAt - grant.now),
      );
    } else {
      this.pending = false;
    }
    this.wake();
  }
}

/** How late a held send time may still be used (ms): timers on a busy host fire late. */
const STALE_MS = 250;
