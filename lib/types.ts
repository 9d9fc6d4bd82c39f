import type { AxiosError, InternalAxiosRequestConfig } from 'axios';
import type { BreakerSync } from './breaker';
import type { RetryBudget } from './budget';

/** How the wait before a retry is computed when the server does not say. */
export type JitterStrategy = 'full' | 'equal' | 'decorrelated' | 'none';

/** Why a call stopped retrying. Set on `error.config.retryState.stopReason`. */
export type StopReason =
  | 'not-retryable'
  | 'retries-exhausted'
  | 'budget-exhausted'
  | 'retry-after-too-long'
  | 'deadline'
  | 'aborted'
  | 'non-idempotent'
  | 'circuit-open';

/** What the plugin did for one logical call; found on `response.config` and `error.config`. */
export interface RetryState {
  /** Requests actually sent (an attempt refused by an open breaker is not counted). */
  attempts: number;
  /** The waits the plugin chose before each retry, in milliseconds (not timer measurements). */
  delaysMs: number[];
  /** The Idempotency-Key sent with every attempt of this call, when there was one. */
  idempotencyKey?: string;
  /** Present on failure only: why the plugin stopped. */
  stopReason?: StopReason;
}

/** Handed to `onRetry` before each wait. */
export interface RetryEvent {
  /** Attempts made so far: 1 before the first retry. The next request is attempt `attempt + 1`. */
  attempt: number;
  /** The wait about to start, in milliseconds. */
  delayMs: number;
  /** Where `delayMs` came from: the jittered backoff or the server's `Retry-After`. */
  delaySource: 'backoff' | 'retry-after';
  /** The failure being retried, as text: the status (`'503'`) or the network code (`'ECONNRESET'`). */
  reason: string;
  /** The failure being retried. */
  error: AxiosError;
  /** The config of the next attempt; changing `config.headers` here changes what the next attempt sends. */
  config: InternalAxiosRequestConfig;
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
  /** `scheme://host:port` of the downstream the breaker guards. */
  origin: string;
  state: CircuitState;
}

export type CircuitState = 'open' | 'half-open' | 'closed';

/** Idempotency-Key settings. */
export interface IdempotencyKeyOptions {
  /**
   * Header that carries the key.
   * @default 'Idempotency-Key'
   */
  header?: string;
  /**
   * Methods that get a key generated for them (case-insensitive).
   * @default ['POST', 'PATCH']
   */
  methods?: readonly string[];
  /**
   * Makes a key. Must return 1–255 printable ASCII characters.
   * @default uuid v4 from a cryptographic random source
   */
  generate?: () => string;
}

/**
 * The circuit breaker options. Everything here passes through to opossum; the plugin sets
 * `timeout: false` (axios owns timeouts), its own `errorFilter`, a shared `rotateBucketController`
 * and `enableSnapshots: false`, which cannot be overridden.
 */
export interface BreakerOptions {
  /**
   * Failure percentage over the rolling window above which the breaker opens.
   * @default 50
   */
  errorThresholdPercentage?: number;
  /**
   * Attempts that must be seen in the rolling window before the breaker may open. The default is
   * larger than the 6 attempts of one call, so a single unlucky call never opens it.
   * @default 20
   */
  volumeThreshold?: number;
  /**
   * How long the breaker stays open before letting one probe through (half-open), in ms.
   * @default 30000
   */
  resetTimeout?: number;
  /**
   * Length of the rolling statistics window, in ms.
   * @default 10000
   */
  rollingCountTimeout?: number;
  /**
   * Buckets in the rolling window.
   * @default 10
   */
  rollingCountBuckets?: number;
  /**
   * Most breakers kept at once (one per origin); the least recently used is shut down past it.
   * @default 1000
   */
  maxOrigins?: number;
  /**
   * Shares breaker state with other processes (e.g. `redisBreakerSync(client)` from
   * `axios-resilience/redis`): an open breaker anywhere opens it everywhere, one probe per fleet.
   * @default undefined (this process only)
   */
  shared?: BreakerSync;
  /** Any other opossum option. */
  [opossumOption: string]: unknown;
}

/** Options for `retryPlugin()`; every field is optional. */
export interface RetryPluginOptions {
  /**
   * Retries after the first attempt (so at most `retries + 1` requests).
   * @default 5
   */
  retries?: number;
  /**
   * Base of the exponential backoff `base * 2^retry`, in ms.
   * @default 500
   */
  baseDelayMs?: number;
  /**
   * Cap on any single wait, computed or from Retry-After, in ms (at most 2^31 - 1).
   * @default 30000
   */
  maxDelayMs?: number;
  /**
   * Backoff strategy.
   * @default 'full'
   */
  jitter?: JitterStrategy;
  /**
   * Statuses that may be retried. 409 is retried in addition, but only on a call that carries an
   * Idempotency-Key.
   * @default [429, 502, 503, 504]
   */
  statusCodes?: readonly number[];
  /**
   * Network error codes that may be retried.
   * @default ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'ECONNABORTED', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ENETUNREACH', 'EHOSTUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'ESOCKETTIMEDOUT', 'UND_ERR_SOCKET', 'ERR_NETWORK']
   */
  errorCodes?: readonly string[];
  /**
   * Idempotency keys for POST and PATCH; `false` sends none.
   * @default { header: 'Idempotency-Key', methods: ['POST', 'PATCH'] }
   */
  idempotencyKey?: false | IdempotencyKeyOptions;
  /**
   * What to do with a Retry-After longer than `maxDelayMs`: wait `maxDelayMs` (`'clamp'`) or give
   * up at once (`'fail'`, stop reason `'retry-after-too-long'`).
   * @default 'clamp'
   */
  retryAfter?: 'clamp' | 'fail';
  /**
   * The retry budget: options for one budget per origin, a `RetryBudget` to share one bucket
   * between every call of this plugin (or of several plugins), or `false` for none.
   * @default { ratio: 0.1, minPerSecond: 10, windowMs: 10000 }
   */
  budget?: false | RetryBudget | { ratio?: number; minPerSecond?: number; windowMs?: number; maxOrigins?: number };
  /**
   * The per-origin circuit breaker: opossum options, or `false` for none.
   * @default { errorThresholdPercentage: 50, volumeThreshold: 20, resetTimeout: 30000, rollingCountTimeout: 10000 }
   */
  breaker?: false | BreakerOptions;
  /**
   * Bound on the whole call, in ms since it began: no wait is scheduled that would end past it.
   * @default undefined (no deadline)
   */
  deadlineMs?: number;
  /**
   * Called before each wait. May change `event.config.headers` (a refreshed token, say); a
   * returned promise is awaited before the wait starts. If it throws, the call rejects with that.
   * @default undefined
   */
  onRetry?: (event: RetryEvent) => void | Promise<void>;
  /**
   * Called once when a call the plugin handled fails for good (any stop reason).
   * @default undefined
   */
  onGiveUp?: (event: GiveUpEvent) => void;
  /**
   * Called when a breaker opens, goes half-open or closes.
   * @default undefined
   */
  onCircuitStateChange?: (change: CircuitStateChange) => void;
  /**
   * Sends the attempt number (`1` on the first attempt, `2` on the first retry, …) in a request
   * header, so servers and proxies can see retries and shed them first under load (as the SRE book
   * recommends for layered systems). `true` uses `X-Retry-Attempt`; a string names the header.
   * @default false
   */
  attemptHeader?: boolean | string;
  /**
   * Source of randomness in [0, 1), for backoff jitter (not for idempotency keys).
   * @default Math.random
   */
  random?: () => number;
  /**
   * Clock in ms, for the deadline. Inject one in tests.
   * @default Date.now
   */
  now?: () => number;
}

/**
 * The per-request `retry` field: `false` leaves the call alone, an object overrides plugin options
 * for this call. Budget and breaker are the plugin's and cannot be changed per request, so a call
 * cannot grant itself more budget.
 */
export interface RetryRequestOptions extends Omit<
  RetryPluginOptions,
  'budget' | 'breaker' | 'idempotencyKey' | 'onCircuitStateChange' | 'now'
> {
  /**
   * A string pins the key for this call; `false` sends none; an object overrides the settings.
   * @default the plugin's `idempotencyKey` setting
   */
  idempotencyKey?: string | false | IdempotencyKeyOptions;
}
