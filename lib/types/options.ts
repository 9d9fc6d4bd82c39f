/** The options a user passes: to `retryPlugin()`, and per request in `config.retry`. */
import type { InternalAxiosRequestConfig } from 'axios';
import type { AttemptInfo, CircuitStateChange, GiveUpEvent, HedgeEvent, RetryContext, RetryEvent } from './events';
import type { BreakerSync, RateLimitEvent, RateLimitStore, RetryBudgetLike } from './guards';
import type { ChaosOptions } from './chaos';

/** The adaptive per-origin rate limiter's settings (see `rateLimit`). */
export interface RateLimitOptions {
  /**
   * The most calls that may wait their turn for one origin; a call past it stops at once with
   * `'rate-limited'` (so does one that would wait past its `deadlineMs`).
   * @default 10000
   */
  maxQueue?: number;
  /**
   * Origins with a limiter kept at once (the least recently used is dropped past it).
   * @default 1000
   */
  maxOrigins?: number;
  /**
   * Shares each origin's limiter with other processes (e.g. `redisRateLimitStore(client)` from
   * `axios-resilience/redis`): the fleet paces, probes, cuts and pauses on one schedule, so processes
   * calling one rate-limited API stay under its limit together. Without it each process paces alone.
   */
  shared?: RateLimitStore;
  /**
   * Which quota a call counts against: calls with the same key share one limiter, one hold and one
   * refusal while their quota is spent. Most APIs count quotas per token, so key by it (for example
   * `(config) => String(config.headers?.Authorization)`): one user's spent quota then does not hold
   * another's calls to the same host. Must return a non-empty string.
   * @default the call's origin
   */
  key?: (config: InternalAxiosRequestConfig) => string;
}

/** How the wait before a retry is computed when the server does not say. */
export type JitterStrategy = 'full' | 'equal' | 'decorrelated' | 'none';

/** Hedging settings (see `hedge`). */
export interface HedgeOptions {
  /**
   * How long an attempt may go unanswered before a copy is sent: ms, or a percentile of the
   * origin's recent successful attempt latencies (`'p50'`, `'p90'`, `'p95'`, `'p99'`).
   */
  delayMs: number | 'p50' | 'p90' | 'p95' | 'p99';
  /**
   * Most copies per attempt, beyond the attempt itself.
   * @default 1
   */
  maxHedges?: number;
  /**
   * With an adaptive `delayMs`: the shortest delay, in ms.
   * @default 5
   */
  minDelayMs?: number;
  /**
   * With an adaptive `delayMs`: the delay used until the origin has 20 latency samples, in ms.
   * @default 100
   */
  fallbackDelayMs?: number;
}

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
  /**
   * Which servers store the key and replay their first answer to a repeat (Stripe, Adyen, PayPal and
   * the IETF Idempotency-Key draft do; most internal and partner APIs do not). Only a write to such a
   * server is retried after it may have been processed (a timeout, a reset, a 502, 503 or 504); a
   * write anywhere else is retried only where the request provably was not processed (connection
   * refused, DNS failure, 408, 429) and otherwise stops with `'non-idempotent'`, keeping its key in
   * `retryState.idempotencyKey`. `true` for every origin, a list of origins
   * (`['https://api.stripe.com']`), or a predicate over the call's origin, written
   * `scheme://host:port` (`'https://api.stripe.com:443'`). A key the caller sets (the header, or
   * `retry.idempotencyKey: 'order-42'`) always counts as deduped.
   * @default false
   */
  serverDedupes?: boolean | readonly string[] | ((origin: string) => boolean);
}

/**
 * The circuit breaker options. The breaker counts each logical call's outcome (after its retries
 * and the budget), never single attempts, so a blip that retries absorb never opens it. Only the
 * options below are honoured; any other name (opossum's `timeout`, `errorFilter`, `cache`, …) is
 * refused with a `TypeError`, because the plugin owns what they would change.
 */
export interface BreakerOptions {
  /**
   * Failure percentage of calls over the rolling window above which the breaker opens.
   * @default 50
   */
  errorThresholdPercentage?: number;
  /**
   * Calls that must have been made in the rolling window before the breaker may open.
   * @default 10
   */
  volumeThreshold?: number;
  /**
   * The first open-state wait before one probe call goes through (half-open), in ms. Each failed
   * probe doubles the wait up to `maxResetTimeout`; a success resets it. Every wait is jittered by
   * ±25 % so a fleet does not probe in step.
   * @default 2000
   */
  resetTimeout?: number;
  /**
   * The longest open-state wait, in ms.
   * @default 60000
   */
  maxResetTimeout?: number;
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
   * Most breakers kept at once (one per key); the least recently used is shut down past it.
   * @default 1000
   */
  maxOrigins?: number;
  /**
   * Which breaker guards a call. Calls with the same key share a breaker; return, say,
   * `` `${origin}/slow` `` for one slow route so its timeouts do not block the rest of the origin.
   * `origin` is `scheme://host:port`.
   * @default the call's origin
   */
  key?: (config: InternalAxiosRequestConfig, origin: string) => string;
  /**
   * Shares breaker state with other processes (e.g. `redisBreakerSync(client)` from
   * `axios-resilience/redis`): an open breaker anywhere opens it everywhere, one probe per fleet.
   * @default undefined (this process only)
   */
  shared?: BreakerSync;
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
   * @default [408, 429, 502, 503, 504, 529]
   */
  statusCodes?: readonly number[];
  /**
   * Network error codes that may be retried.
   * @default ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'ECONNABORTED', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ENETUNREACH', 'EHOSTUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'ESOCKETTIMEDOUT', 'UND_ERR_SOCKET', 'ERR_NETWORK']
   */
  errorCodes?: readonly string[];
  /**
   * Idempotency keys for POST and PATCH; `false` sends none. `serverDedupes` names the servers that
   * store keys: only their writes are repeated after they may have been processed.
   * @default { header: 'Idempotency-Key', methods: ['POST', 'PATCH'], serverDedupes: false }
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
   * @default { ratio: 0.1, minPerSecond: 10, windowMs: 10000, maxOrigins: 1000 }
   */
  budget?: false | RetryBudgetLike | { ratio?: number; minPerSecond?: number; windowMs?: number; maxOrigins?: number };
  /**
   * The per-origin circuit breaker (opossum, counting calls), or `false` for none.
   * @default { errorThresholdPercentage: 50, volumeThreshold: 10, resetTimeout: 2000, maxResetTimeout: 60000, rollingCountTimeout: 10000, rollingCountBuckets: 10, maxOrigins: 1000 }
   */
  breaker?: false | BreakerOptions;
  /**
   * The adaptive per-origin rate limiter, or `false` for none. Off until an origin throttles (a
   * 429, a 503 with `Retry-After`, a `RateLimit` header saying the quota is spent); then that
   * origin's calls and retries wait their turn in a FIFO queue, paced at the rate the server
   * allows, and it relaxes after 5 s without a throttle. A server's `Retry-After` pauses the whole
   * origin. See docs/guides/rate-limits.md.
   * @default { maxQueue: 10000, maxOrigins: 1000 }
   */
  rateLimit?: false | RateLimitOptions;
  /**
   * Bound on the whole call, in ms since it began: an attempt in flight is ended at the deadline
   * (each attempt's timeout is the smaller of axios's `timeout` and the time left), and no wait is
   * scheduled that would end past it. Stop reason `'deadline'`.
   * @default undefined (no deadline)
   */
  deadlineMs?: number;
  /**
   * Called before each wait. May change `event.config.headers` (a refreshed token, say); a
   * returned promise is awaited before the wait starts, but an abort or `plugin.close()` ends the
   * call at once whatever the hook is doing. If it throws or rejects, the call fails with its last
   * `AxiosError` (stop reason `'hook-failed'`, the hook's error on `retryState.hookError`), no
   * retry is sent and no budget is spent.
   * @default undefined
   */
  onRetry?: (event: RetryEvent) => void | Promise<void>;
  /**
   * Called exactly once when a call the plugin handled fails for good (any stop reason, a call
   * cancelled before it was sent included). What it throws is swallowed: the caller still gets
   * the call's own error.
   * @default undefined
   */
  onGiveUp?: (event: GiveUpEvent) => void;
  /**
   * Overrides the decision table, per attempt: `true` retries, `false` stops, `undefined` keeps the
   * table's decision (`ctx.decision`). It never bypasses the guards: `retries`, the deadline, the
   * breaker, the budget and aborts still apply, a consumed stream body is never re-sent, and a
   * cancelled call is never retried. Also called after every resolved response, so a 2xx whose body
   * says "pending" can be retried; when its retries run out the call resolves with the last response
   * and `retryState.stopReason` says why it stopped. May be async; if it throws, the call fails with
   * stop reason `'hook-failed'`. Returning `true` for a keyless POST repeats work the server may have
   * done: see the decision-table guide.
   * @default undefined (the table decides)
   */
  shouldRetry?: (ctx: RetryContext) => boolean | undefined | Promise<boolean | undefined>;
  /**
   * Runs before every attempt, the first included, after the interceptors (which run once per
   * call): refresh a token, sign the request with a timestamp, take a token from a rate limiter.
   * Changing `config.headers` changes what this attempt sends. May be async; bounded by aborts,
   * `plugin.close()` and the deadline. If it throws, the call fails with stop reason `'hook-failed'`.
   * @default undefined
   */
  beforeAttempt?: (config: InternalAxiosRequestConfig, info: AttemptInfo) => void | Promise<void>;
  /**
   * Hedged requests ("The Tail at Scale"): when an attempt has not answered after `delayMs`, send a
   * copy and take whichever answers first; the others are aborted. Only calls safe to send twice
   * are hedged (idempotent methods, and writes whose key is deduped: see `serverDedupes`; never
   * another POST/PATCH or a stream body).
   * Each copy takes a retry-budget token (no token, no hedge) and none goes out while the breaker
   * is not closed. `false` turns it off.
   * @default false
   */
  hedge?: false | HedgeOptions;
  /**
   * Called when a hedged copy is sent.
   * @default undefined
   */
  onHedge?: (event: HedgeEvent) => void;
  /**
   * Called when a breaker opens, goes half-open or closes.
   * @default undefined
   */
  onCircuitStateChange?: (change: CircuitStateChange) => void;
  /**
   * Called when an origin's rate limiter engages (the server began throttling) or relaxes.
   * @default undefined
   */
  onRateLimit?: (event: RateLimitEvent) => void;
  /**
   * Sends the attempt number (`1` on the first attempt, `2` on the first retry, …) in a request
   * header, so servers and proxies can see retries and shed them first under load (as the SRE book
   * recommends for layered systems). `true` uses `X-Retry-Attempt`; a string names the header.
   * @default false
   */
  attemptHeader?: boolean | string;
  /**
   * Stream bodies (a file, a `form-data` upload, `postForm` in Node) are kept as they are sent, up
   * to `maxBytes` per call in flight, so a failed attempt can be sent again byte for byte. A stream
   * past the bound is sent once, unchanged; if that attempt fails, the call stops with
   * `'body-not-replayable'`. For bigger uploads give the request a `body` factory instead. Memory:
   * at most `maxBytes` per call with a stream body, held until the call ends.
   * @default { maxBytes: 8388608 }
   */
  replay?: { maxBytes?: number };
  /**
   * Source of randomness in [0, 1), for backoff jitter (not for idempotency keys).
   * @default Math.random
   */
  random?: () => number;
  /**
   * Clock in ms, for the deadline. Inject one in tests.
   * @default `Date.now`, read when a call runs (fake timers installed after the plugin was made are honoured)
   */
  now?: () => number;
  /**
   * Fault injection inside the client: injected responses, network errors and latency, on a share
   * of the matching attempts, seen by the decision table, `shouldRetry`, the budget, the breaker,
   * the rate limiter and the hooks as real outcomes are. Off unless given; `enabled: false` turns it
   * off, and `retry: { chaos: false }` for one call. See docs/guides/chaos.md.
   * @default undefined (off)
   */
  chaos?: ChaosOptions;
}

/**
 * The per-request `retry` field: `false` leaves the call alone, an object overrides plugin options
 * for this call. Budget and breaker are the plugin's and cannot be changed per request, so a call
 * cannot grant itself more budget.
 */
export interface RetryRequestOptions extends Omit<
  RetryPluginOptions,
  'budget' | 'breaker' | 'idempotencyKey' | 'onCircuitStateChange' | 'now' | 'rateLimit' | 'onRateLimit' | 'chaos'
> {
  /**
   * `false`: no fault is injected into this call (faults are set on the plugin).
   * @default the plugin's `chaos`
   */
  chaos?: false;
  /**
   * A string pins the key for this call; `false` sends none; an object overrides the settings.
   * @default the plugin's `idempotencyKey` setting
   */
  idempotencyKey?: string | false | IdempotencyKeyOptions;
  /**
   * Makes the body of each retry afresh, so an upload of any size can be retried without the plugin
   * keeping it: `body: () => fs.createReadStream(path)`. The first attempt sends the request's own
   * data; each retry sends what this returns (a string, Buffer, ArrayBuffer, typed array, Blob,
   * FormData, URLSearchParams or stream, as an adapter takes it: `transformRequest` does not run
   * again). May return a promise. If it throws, or returns something else, the call fails with that
   * error (stop reason `'hook-failed'`), and nothing more is sent.
   * @default undefined
   */
  body?: () => unknown;
}
