/** The shared guards as a user sees and extends them: budgets, breakers, and the stores a fleet shares budgets and breakers through. */

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
