/** A fleet's shared rate limiter as a user sees and extends it: what a process tells it, and the store behind it. */
import type { LimiterState } from './guards';

/** A throttle as a process hands it to the fleet's pacing: a `RateLimitReport` with the send time (the process's ms) for its age. */
export interface PacingThrottle extends Omit<RateLimitReport, 'ageMs'> {
  sentAt: number;
}

/** A throttle as a process tells the fleet's shared rate limiter (see `RateLimitStore`). */
export interface RateLimitReport {
  /** How long ago the throttled attempt was sent, in ms (`Infinity`: it was not paced). Ages, not times, so clocks need not agree. */
  ageMs: number;
  /** Hold the fleet this long (a `Retry-After`, a spent quota's reset), already clamped. */
  pauseMs?: number | undefined;
  /** A rate the server's policy states, per second (for the whole fleet: the server counts every process). */
  policyRate?: number | undefined;
  /**
   * `true`: nothing but the status said it was a throttle (no wait, no quota, no policy). Such
   * throttles cut the fleet's rate only past a small share of its answers (`RATE_RULE.noise`);
   * absent, the throttle cuts as one with a hint does.
   */
  hintless?: boolean | undefined;
  /**
   * Successes per second the reporting process saw its scope served at before its first throttle:
   * a fleet that engages on this report starts pacing there (above `RATE_RULE.seedRate`) instead of
   * in slow start. Absent: slow start.
   */
  startRate?: number | undefined;
}

/** The send times a `RateLimitStore` granted (times in the store's clock, ms). */
export interface RateLimitGrant extends RateLimitFleetState {
  /** `'off'`: the fleet is not throttled (no shared state: it relaxed, or never engaged); the times are "now". */
  state: LimiterState;
  /** How many send times were granted: fewer than asked when the fleet's schedule is booked ahead. */
  granted: number;
  /** The first send time granted; the others follow every `intervalMs`. */
  first: number;
  intervalMs: number;
  /** When asking again can be granted something (when `granted` is less than asked). */
  retryAt: number;
  /** The shared state expires then (the fleet relaxes) unless throttled or booked ahead again. */
  relaxAt: number;
}

/** The fleet's limiter of one origin after a throttle (times in the store's clock, ms). */
export interface RateLimitFleetState {
  /** The store's clock when it answered. */
  now: number;
  /** The fleet's rate, per second (`Infinity` when off). */
  ratePerSecond: number;
  /** The fleet is paused until then (0: not paused). */
  pausedUntil: number;
}

/**
 * A fleet's shared schedule of send times, one per origin (see `axios-resilience/redis`'s
 * `redisRateLimitStore`, which is one). Implementations time out and report trouble themselves: a
 * schedule that cannot answer resolves `undefined`, and the process paces alone meanwhile.
 */
export interface RateLimitSchedule {
  /** `false` while the store is known to be down: the process paces alone and does not ask. */
  usable(): boolean;
  /**
   * Grants up to `count` send times for `key`; `successes`: the answers this process counted as
   * successes since it last reported (batched here, so no round trip of their own); `policyRate`: a
   * rate the server's policy states. `undefined` when the store could not answer in time.
   */
  take(key: string, count: number, successes: number, policyRate?: number): Promise<RateLimitGrant | undefined>;
  /**
   * A throttle of `key`: engages the shared state, or cuts its rate (once per burst) and pauses it.
   * Resolves the fleet's state after it (`undefined` when the store could not answer). Never rejects.
   */
  throttle(key: string, report: RateLimitReport, successes: number): Promise<RateLimitFleetState | undefined>;
}

/**
 * What one origin's rate limiter asks of a shared store: send times for the calls it queues, and
 * where to report what the server said. While `active` is `false` (the store is down) the limiter
 * paces by its own rate, as without a store. `axios-resilience/redis`'s `SharedPacing` is the one
 * implementation (over any `RateLimitSchedule`).
 */
export interface RateLimitPacing {
  readonly active: boolean;
  /** The local time of the next send time held, or `undefined` when none is held. */
  next(now: number): number | undefined;
  /** Spends the next send time held. */
  use(): void;
  /**
   * Asks for send times so that `waiting` calls are covered; `wake` runs when some arrive, or pacing
   * stops. `0`: no call waits any more, so nothing it holds for them may keep the process alive.
   */
  want(waiting: number, wake: () => void): void;
  /** The fleet stays throttled until then (local ms): the limiter does not relax before. */
  readonly onUntil: number;
  /** How long the `queued`-th waiting call would wait, by the fleet's schedule (ms). */
  expectedWaitMs(queued: number, now: number): number;
  /** The fleet's rate and pause (local ms), for `plugin.limiter()`. */
  readonly ratePerSecond: number;
  readonly pausedUntil: number;
  /** An answer of the throttled origin that is not a throttle. */
  succeeded(): void;
  /** A throttle this process saw (`sentAt`: local ms; `-Infinity` for an attempt that was not paced). */
  throttled(throttle: PacingThrottle, now: number): void;
  /** The server's policy states its rate. */
  hinted(policyRate: number | undefined): void;
  close(): void;
}

/**
 * Shares each origin's rate limiter between processes: `rateLimit: { shared: store }`, e.g.
 * `redisRateLimitStore(client)` from `axios-resilience/redis`. Each process keeps its own queue;
 * the store's schedule grants the send times and takes the throttles, so the fleet probes, cuts and
 * pauses as one. The pacing code lives with the store (in the `redis` subpath), so the main entry
 * does not carry it.
 */
export interface RateLimitStore {
  /** The pacing of one origin's (or breaker key's) limiter, made with the limiter; `now` is the plugin's clock. */
  pacing(key: string, now: () => number): RateLimitPacing;
  /**
   * Starts listening for the fleet engaging an origin's limiter (another process's first throttle):
   * `engage(key)` then turns this process's limiter for `key` on, before its own first 429.
   */
  start?(engage: (key: string) => void): void;
  /** Releases what the store holds (the plugin's `close()` calls it). */
  close?(): Promise<void>;
}
