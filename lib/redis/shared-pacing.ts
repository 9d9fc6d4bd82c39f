import type { PacingThrottle, RateLimitGrant, RateLimitPacing, RateLimitSchedule } from '../types';
import { ClockOffset } from './clock-offset';
import { HeldSlots } from './held-slots';
import { RoundTrips } from './round-trips';

/**
 * A limiter's send times taken from the fleet's shared schedule (`rateLimit.shared`), over any
 * `RateLimitSchedule` (`redisRateLimitStore` is one; another store can reuse this). The local
 * limiter keeps its queue, bound and on/off state; this asks the store for send times for the calls
 * waiting and reports throttles to it. Successes are counted here and handed over with the next
 * request, so they cost no round trip.
 *
 * A slow store is waited for, never left: requests are pipelined. While calls wait, a process asks
 * again every 25 ms (`ASK_EVERY_MS`) without waiting for the answers before (up to a round trip's worth in
 * flight), each for what it will spend that the send times held and asked for do not cover. Each
 * request books only the store's short horizon, at the rate the fleet has when it arrives, so a
 * slow answer delays the calls by its last leg, not by a round trip per batch, and the fleet's cuts
 * reach the server as soon as on a fast store, less that leg. Fast, this is one request at a time.
 *
 * Times in the store's replies are in its clock; `ClockOffset` places them as if each answer had
 * come at once: a grant's "now" is its arrival.
 */
export class SharedPacing implements RateLimitPacing {
  ratePerSecond = Infinity;
  pausedUntil = 0;
  onUntil = 0;
  private readonly slots = new HeldSlots();
  /** This process's round trips to the store: how many requests may be out, how much to ask for. */
  private readonly roundTrips = new RoundTrips();
  private readonly clock = new ClockOffset();
  private intervalMs = 0;
  /** Requests out, and the send times they ask for. */
  private inFlight = 0;
  private askedFor = 0;
  private lastAskAt = -Infinity;
  /** The schedule is booked ahead: no request before this (local ms). */
  private notBefore = 0;
  /** Asks again at `notBefore`, or `ASK_EVERY_MS` after the last request. */
  private timer: ReturnType<typeof setTimeout> | undefined;
  private waiting = 0;
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
    return this.slots.next(Math.max(now - STALE_MS, this.pausedUntil));
  }

  use(): void {
    this.slots.use(this.now());
  }

  want(waiting: number, wake: () => void): void {
    this.wake = wake;
    this.waiting = waiting;
    if (waiting === 0) return this.stopAsking();
    this.ask();
  }

  expectedWaitMs(queued: number, now: number): number {
    const last = this.slots.at(Math.min(queued, this.slots.length) - 1) ?? now;
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
  throttled(throttle: PacingThrottle, now: number): void {
    if (throttle.policyRate !== undefined) this.policyRate = throttle.policyRate;
    if (!this.active) return;
    const successes = this.successes;
    this.successes = 0;
    const report = {
      ageMs: Math.max(0, now - throttle.sentAt),
      pauseMs: throttle.pauseMs,
      policyRate: this.policyRate,
      hintless: throttle.hintless,
      startRate: throttle.startRate,
    };
    this.store.throttle(this.key, report, successes).then(
      (state) => {
        if (state === undefined || this.closed) return;
        const offset = this.clock.sample(state.now, this.now());
        this.ratePerSecond = state.ratePerSecond;
        this.slots.slower(state.ratePerSecond);
        this.pausedUntil = state.pausedUntil > state.now ? state.pausedUntil - offset : 0;
      },
      () => undefined,
    );
  }

  close(): void {
    this.closed = true;
    this.stopAsking();
    this.slots.clear();
  }

  /**
   * Asks for the send times this process will spend that are neither held nor asked for: the calls
   * waiting, and twice what it spent in the last round trip (`HeldSlots.aheadFor`).
   */
  private ask(): void {
    if (this.closed || this.timer !== undefined || !this.active) return;
    const now = this.now();
    const roundTripMs = this.roundTrips.longest();
    const missing = this.waiting + this.slots.aheadFor(roundTripMs, now) - this.slots.length - this.askedFor;
    if (missing <= 0) return;
    if (this.inFlight > Math.floor(roundTripMs / ASK_EVERY_MS)) return; // an answer asks again
    const at = Math.max(this.notBefore, this.inFlight > 0 ? this.lastAskAt + ASK_EVERY_MS : now);
    if (at > now) {
      // Referenced, as the limiter's own timer is: calls wait on it (`want(0)` drops it once none does).
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.ask();
      }, at - now);
      return;
    }
    this.inFlight++;
    this.askedFor += missing;
    this.lastAskAt = now;
    const successes = this.successes;
    this.successes = 0;
    this.store.take(this.key, missing, successes, this.policyRate).then(
      (grant) => this.granted(grant, now, missing),
      () => this.granted(undefined, now, missing),
    );
  }

  /** No call waits any more: a request booked for later is dropped (those already out are left to land). */
  private stopAsking(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private granted(grant: RateLimitGrant | undefined, asked: number, missing: number): void {
    this.inFlight--;
    this.askedFor -= missing;
    if (this.closed) return;
    if (grant === undefined) {
      // The store is gone: the limiter paces alone until it answers again.
      this.slots.clear();
      this.wake();
      return;
    }
    const answered = this.now();
    this.roundTrips.add(answered - asked);
    const offset = this.clock.sample(grant.now, answered);
    this.ratePerSecond = grant.ratePerSecond;
    this.pausedUntil = grant.pausedUntil > grant.now ? grant.pausedUntil - offset : 0;
    this.onUntil = grant.state === 'on' ? grant.relaxAt - offset : 0;
    this.intervalMs = grant.intervalMs;
    // A fleet that is off grants "now".
    const times = Array.from({ length: grant.granted }, (_, i) =>
      grant.state === 'off' ? answered : grant.first + i * grant.intervalMs - offset,
    );
    this.slots.add(times, grant.ratePerSecond);
    // Booked ahead: the next request should reach the store once the schedule has room.
    if (grant.granted < missing) this.notBefore = grant.retryAt - offset - (answered - asked);
    this.wake();
  }
}

/** How late a held send time may still be used (ms): timers on a busy host fire late. */
const STALE_MS = 250;

/** While calls wait, a process asks at most this often (ms); a round trip's worth of requests may be out. */
const ASK_EVERY_MS = 25;
