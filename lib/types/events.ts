/** What a call tells its caller and its hooks: its state, why it stopped, and the events on the way. */
import type { AxiosError, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import type { RateLimitEvent } from './guards';

/** Why a call stopped retrying. Set on `error.config.retryState.stopReason`. */
export type StopReason =
  | 'not-retryable'
  | 'retries-exhausted'
  | 'budget-exhausted'
  | 'retry-after-too-long'
  | 'deadline'
  | 'aborted'
  | 'non-idempotent'
  | 'circuit-open'
  | 'hook-failed'
  | 'cors-suspected'
  | 'body-not-replayable'
  | 'rate-limited';

/** What the plugin did for one logical call; found on `response.config` and `error.config`. */
export interface RetryState {
  /** Requests actually sent (an attempt refused by an open breaker is not counted; with `chaos`, an attempt a fault ended before the send is). */
  attempts: number;
  /**
   * The wait before each retry, in milliseconds: the wait the plugin chose (a backoff, the server's
   * `Retry-After`) plus, while the call's rate-limit key is throttled, the time it waited for its
   * turn there (an origin's pause included), by the plugin's clock.
   */
  delaysMs: number[];
  /**
   * The Idempotency-Key sent with every attempt of this call: the plugin's own or a pinned one, and
   * on a method the plugin does not key (a GET, a PUT) a key you set yourself, once the call has
   * failed at least once (that is when the key changes anything: a 409 is retried).
   */
  idempotencyKey?: string;
  /** Present on failure only: why the plugin stopped. */
  stopReason?: StopReason;
  /** With `stopReason: 'hook-failed'`: what `onRetry` threw (or rejected with). */
  hookError?: unknown;
  /** Hedged copies sent (counted in `attempts` too), when hedging is on and a copy went out. */
  hedges?: number;
  /** `true` when a hedged copy, not the attempt it hedged, gave the answer. */
  hedgeWon?: boolean;
  /**
   * With `stopReason: 'rate-limited'` for a spent quota: when it resets (epoch ms, by the plugin's
   * clock), so a caller can say when to come back. Calls with the same rate-limit key are refused
   * without being sent until then.
   */
  retryAt?: number;
  /**
   * With `chaos` on for the call: how many of its attempts had an injected outcome (counted in
   * `attempts` too, though a fault injected before the send sent nothing).
   */
  injected?: number;
}

/** Handed to `onRetry` before each wait. */
export interface RetryEvent {
  /** Attempts made so far: 1 before the first retry. The next request is attempt `attempt + 1`. */
  attempt: number;
  /** The wait about to start, in milliseconds. */
  delayMs: number;
  /**
   * Where `delayMs` came from, one value per source: the jittered backoff (`'backoff'`), the server's
   * `Retry-After`, `retry-after-ms` or a spent quota's reset (`'retry-after'`), your `delay` option
   * (`'delay'`), or the rate limiter (`'rate-limit'`: the retry of a throttled attempt waits its turn
   * in its key's queue, longer than its own wait; `delayMs` is the wait expected then).
   */
  delaySource: 'backoff' | 'retry-after' | 'rate-limit' | 'delay';
  /**
   * The failure being retried, as text: the status (`'503'`) or the network code (`'ECONNRESET'`);
   * `'rate-limited'` for a throttled attempt whose retry waits in the rate limiter's queue.
   */
  reason: string;
  /**
   * The failure being retried. For a resolved response that `shouldRetryResponse` asked to retry: an
   * `AxiosError` with code `'ERR_SHOULD_RETRY'` and that `response`.
   */
  error: AxiosError;
  /** The config of the next attempt; changing `config.headers` here changes what the next attempt sends. */
  config: InternalAxiosRequestConfig;
  /** `true` when the failure being retried was injected by `chaos` (`error.injected` says which fault). */
  injected?: boolean;
}

/** What the decision table says about one failed attempt. */
export interface RetryDecision {
  /** Whether the table retries it (the guards — retries, deadline, breaker, budget — still apply). */
  retry: boolean;
  /** The failure as text: the status (`'503'`), the network code (`'ECONNRESET'`), `'no response'`, … */
  reason: string;
  /** Why not, when `retry` is `false`. */
  stopReason?: StopReason;
}

/**
 * Handed to `shouldRetry` after every attempt that failed, and to `shouldRetryResponse` after every
 * attempt whose response axios resolved.
 */
export interface RetryContext {
  /** The attempt's failure; `undefined` for `shouldRetryResponse` (the response was resolved). */
  error: AxiosError | undefined;
  /**
   * The response: of a resolved attempt, or the failed one's `error.response` when there was one,
   * with its body as the caller would get it (axios's `transformResponse` applied: JSON parsed).
   */
  response: AxiosResponse | undefined;
  /** Attempts made so far, this one included (1 after the first). */
  attempt: number;
  /** Upper-case method. */
  method: string;
  /** The call carries an Idempotency-Key (generated or the caller's own). */
  keyed: boolean;
  /**
   * That key is one the server dedupes: the caller set it, or `idempotencyKey.serverDedupes` declares
   * the call's origin. A write is repeated after it may have been processed only when this is `true`.
   */
  deduped: boolean;
  /** What the decision table decided; for a resolved response, `{ retry: false, reason: 'success' }`. */
  decision: RetryDecision;
  /** The call's config (changing its headers changes what a retry sends). */
  config: InternalAxiosRequestConfig;
}

/** Handed to `delay` before each retry's wait is chosen. */
export interface DelayContext {
  /** The retry about to wait: 1 for the first retry. */
  attempt: number;
  /** The failure being retried (for a response `shouldRetryResponse` asked to retry, as on `RetryEvent.error`). */
  error: AxiosError;
  /**
   * The wait the plugin would take without `delay`, in ms: the server's wait when it asked for one
   * (within `maxDelayMs`), else the backoff (jitter applied).
   */
  computedMs: number;
  /** The wait the server asked for (`Retry-After`, `retry-after-ms`, a rate-limit reset), in ms, if it did. */
  serverMs: number | undefined;
  /** The config of the next attempt. */
  config: InternalAxiosRequestConfig;
}

/** Handed to `onHedge` when a hedged copy is sent. */
export interface HedgeEvent {
  /** The request number of the copy (counted like `attempts`). */
  attempt: number;
  /** How long the hedged attempt had gone unanswered. */
  delayMs: number;
  config: InternalAxiosRequestConfig;
}

/** Handed to `beforeAttempt` before every attempt, the first included. */
export interface AttemptInfo {
  /** The attempt about to be sent: 1 for the first. */
  attempt: number;
  /** The time the deadline leaves, in ms, when the call has one. */
  timeLeftMs: number | undefined;
}

/** Handed to `onGiveUp` when a call the plugin handled fails for good. */
export interface GiveUpEvent {
  /** The error the caller receives. */
  error: unknown;
  /** Why the plugin stopped. */
  stopReason: StopReason;
  /** The call's state, as on `error.config.retryState`. */
  retryState: RetryState;
}

/** A circuit breaker changed state; see `onCircuitStateChange`. */
export interface CircuitStateChange {
  /** `scheme://host:port` of the downstream the breaker guards (or the `breaker.key` result). */
  origin: string;
  /**
   * For the breaker of one route (a route failing while the origin's other routes succeed), that
   * route: the method and the path with its ids folded (`'GET /reports/:'`). Absent for an origin's.
   */
  scope?: string;
  state: CircuitState;
}

export type CircuitState = 'open' | 'half-open' | 'closed';

/** A call that ended, well or not: how many requests it took. */
export interface SettleEvent {
  /** `scheme://host:port` of the call's last attempt. */
  origin: string;
  /** `undefined` for a call that succeeded. */
  stopReason: StopReason | undefined;
  retryState: RetryState;
}

/**
 * What `plugin.on(name, listener)` hands each listener: the hooks' events, each with the origin it
 * concerns.
 */
export interface PluginEvents {
  /** A retry is about to wait (after `onRetry`, which did not fail it). */
  retry: RetryEvent & { origin: string };
  /** A call failed for good (as `onGiveUp` sees it). */
  giveUp: GiveUpEvent & { origin: string };
  /** A call the plugin ran settled: resolved, or rejected with its stop reason. */
  settle: SettleEvent;
  /** A breaker changed state. */
  circuitStateChange: CircuitStateChange;
  /** A rate limiter engaged or relaxed. */
  rateLimit: RateLimitEvent;
}

export type PluginEventName = keyof PluginEvents;
