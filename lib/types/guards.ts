/** The shared guards as a user sees and extends them: budgets, breakers, and the stores a fleet shares them through. */

/**
 * Shares breaker state between processes (see `axios-resilience/redis`): when one process's breaker
 * for an origin opens or closes, the others follow, and a half-open probe is one per fleet.
 */
export interface BreakerSync {
  /**
   * Starts listening; `apply` is called for every state another process announces, with the
   * open-state wait that process chose (when it said).
   */
  start(apply: (origin: string, state: 'open' | 'closed', resetTimeoutMs?: number) => void): void;
  /** Announces a local open (for `resetTimeoutMs`) or close. Must not throw or reject. */
  announce(origin: string, state: 'open' | 'closed', resetTimeoutMs: number): void;
  /** Claims the one half-open probe for `origin`; resolves `true` when the store cannot be reached. */
  acquireProbe(origin: string, ttlMs: number): Promise<boolean>;
  /** Stops listening. */
  close(): Promise<void>;
}

/**
 * The breaker `plugin.breaker(url)` hands out: an opossum `CircuitBreaker`, typed by the part a
 * user needs (state, rolling stats, events), so the package's types do not depend on opossum's.
 */
export interface CircuitBreakerView {
  /** The breaker's key: the origin, `scheme://host:port`, unless `breaker.key` says otherwise. */
  readonly name: string;
  readonly opened: boolean;
  readonly halfOpen: boolean;
  readonly closed: boolean;
  /** `true` once the plugin closed or evicted it (past `maxOrigins`); it is then unused. */
  readonly isShutdown: boolean;
  /** opossum's rolling-window counts, of calls (`fires`), failed calls, refused calls (`rejects`), … */
  readonly stats: { fires: number; failures: number; successes: number; rejects: number; [count: string]: unknown };
  /** opossum's events: `open`, `halfOpen`, `close`, `fire`, `success`, `failure`, `reject`, `shutdown`, … */
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
  /** Forces the breaker open (for maintenance windows); it half-opens after the open-state wait. */
  open(): void;
  /** Forces the breaker closed. */
  close(): void;
}

/** A shared store (Redis) going away or coming back, as told to `onStoreEvent`. */
export type StoreEvent = { type: 'store-down'; error: unknown } | { type: 'store-up' };

/** The settings a budget store needs to decide a grant the way the local bucket would. */
export interface BudgetSettings {
  ratio: number;
  minPerSecond: number;
  windowMs: number;
}

/**
 * Where a budget's counts are kept when they are shared between processes (see
 * `axios-resilience/redis`). The in-memory ring stays the fast path: first attempts are counted
 * locally and handed to the store in batches; only a retry waits for the store's answer.
 */
export interface BudgetStore {
  /** Adds `count` first attempts (a batch) to the shared counts. */
  deposit(count: number, settings: BudgetSettings): Promise<void>;
  /** Grants one retry atomically against the shared counts, or refuses it. */
  withdraw(settings: BudgetSettings): Promise<boolean>;
  /** Gives back a granted retry that was never sent (the call was aborted during its wait). */
  refund?(settings: BudgetSettings): Promise<void>;
  /** `false` when the store knows it cannot answer now (disconnected), so the budget need not wait. */
  ready?(): boolean;
}

/** What a budget has done, for dashboards and logs. */
export interface RetryBudgetState {
  /** Whole retries it would grant right now. */
  available: number;
  /** First attempts counted in the current window. */
  requests: number;
  /** Retries granted in the current window. */
  retries: number;
  /** Retries granted since it was made (less those given back unsent). */
  granted: number;
  /** Retries refused since it was made. */
  refused: number;
  /** `'shared'` while a store answers, `'local'` without a store or while it is down. */
  mode: 'local' | 'shared';
}

/** What the engine needs of a budget: `RetryBudget` is the one implementation. */
export interface RetryBudgetLike {
  /** Counts a first attempt. */
  deposit(): void;
  /** Takes one retry; `false` when the budget is spent. */
  tryWithdraw(): boolean | Promise<boolean>;
  /** Gives back a retry that was granted but not sent. */
  refund(): void;
  state(): RetryBudgetState;
  /** Hands batched counts to a shared store now. */
  flush(): Promise<void>;
}

/** A throttle as a process hands it to the fleet's pacing (times: the process's ms). */
export interface PacingThrottle {
  sentAt: number;
  pauseMs?: number | undefined;
  policyRate?: number | undefined;
  hintless?: boolean | undefined;
  /** Successes per second the scope was served at before it engaged (a fleet that engages starts there). */
  startRate?: number | undefined;
}

/** `off`: calls to the origin go straight out. `on`: they are paced through its queue. */
export type LimiterState = 'off' | 'on';

/** What `plugin.limiter(url)` shows of an origin's rate limiter (a snapshot). */
export interface RateLimiterView {
  readonly state: LimiterState;
  /**
   * What the limiter paces within its origin, when narrower than the origin: a route (`'GET
   * /repos/:/:/issues/:'`, ids folded), a route and a model (`'POST /v1/messages model claude-a'`),
   * or a quota the server names (`'resource search'`). Absent for an origin-wide limiter or a
   * `rateLimit.key` of yours.
   */
  readonly scope?: string;
  /** Requests per second the limiter lets out now; `Infinity` while off. */
  readonly ratePerSecond: number;
  /** Calls waiting their turn. */
  readonly queued: number;
  /** Every call is held until this time (ms of the plugin's clock), after a `Retry-After` or a spent quota; 0 when not paused. */
  readonly pausedUntil: number;
}

/** A rate limiter engaged (the server began throttling) or relaxed (it stopped); see `onRateLimit`. */
export interface RateLimitEvent {
  /** The origin whose calls the limiter paces (or the `rateLimit.key` result). */
  origin: string;
  /** The scope within the origin it paces, when narrower (see `RateLimiterView.scope`). */
  scope?: string;
  state: 'engaged' | 'relaxed';
  /** The rate it paces at from now, per second (`Infinity` on relax). */
  ratePerSecond: number;
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
export interface RateLimitGrant {
  /** The store's clock when it answered. */
  now: number;
  /** `'off'`: the fleet is not throttled (no shared state: it relaxed, or never engaged); the times are "now". */
  state: LimiterState;
  /** How many send times were granted: fewer than asked when the fleet's schedule is booked ahead. */
  granted: number;
  /** The first send time granted; the others follow every `intervalMs`. */
  first: number;
  intervalMs: number;
  /** When asking again can be granted something (when `granted` is less than asked). */
  retryAt: number;
  /** The fleet's rate, per second (`Infinity` when off). */
  ratePerSecond: number;
  /** The fleet is paused until then (0: not paused). */
  pausedUntil: number;
  /** The shared state expires then (the fleet relaxes) unless throttled or booked ahead again. */
  relaxAt: number;
}

/** The fleet's limiter of one origin after a throttle (times in the store's clock, ms). */
export interface RateLimitFleetState {
  /** The store's clock when it answered. */
  now: number;
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
