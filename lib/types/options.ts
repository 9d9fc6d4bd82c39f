/** The options a user passes: to `retryPlugin()`, and per request in `config.retry`. */
import type { InternalAxiosRequestConfig } from 'axios';
import type {
  AttemptInfo,
  CircuitStateChange,
  DelayContext,
  GiveUpEvent,
  HedgeEvent,
  RetryContext,
  RetryEvent,
} from './events';
import type { RateLimitEvent, RetryBudgetLike } from './guards';
import type { ChaosOptions } from './chaos';
import type {
  BreakerOptions,
  HedgeOptions,
  IdempotencyKeyOptions,
  JitterStrategy,
  RateLimitHeaders,
  RateLimitOptions,
} from './part-options';

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
   * Network error codes that may be retried, matched whatever their case (`'econnreset'` is
   * `ECONNRESET`). An errno-style code (`E…`) must be one a socket or a DNS lookup gives; other codes
   * (Node's and axios's `ERR_…`, undici's `UND_ERR_…`, a custom adapter's own) are taken as written,
   * unless one is a near miss of a known code. A code that could never match is refused with a
   * `TypeError` rather than silently retrying nothing.
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
   * The per-origin circuit breaker (opossum, counting calls), or `false` for none. A route failing
   * while the origin's other routes succeed gets a breaker of its own (`key` chooses the breaker
   * yourself, and then no route has one).
   * @default { errorThresholdPercentage: 50, volumeThreshold: 10, resetTimeout: 2000, maxResetTimeout: 60000, rollingCountTimeout: 10000, rollingCountBuckets: 10, maxOrigins: 1000 }
   */
  breaker?: false | BreakerOptions;
  /**
   * The adaptive rate limiter, or `false` for none. Off until throttled, and scoped by what the answers
   * say: the quota the server names (`X-RateLimit-Resource`), a route and the model its body names, a
   * route, the origin once several routes throttle (`key` chooses the scope yourself). A throttle with a
   * hint engages its scope at once; bare 429s only once they are a fifth of its answers for a second.
   * Then that scope's calls and retries wait their turn in a FIFO queue, paced from the rate the scope
   * was served at, and it relaxes 5 s after its last throttle. A spent quota holds the scope until its
   * reset; a server wait holds it with a spent quota or from 5 s on. See docs/guides/rate-limits.md.
   * In a browser build there is none by default: pass `rateLimiting()` from `axios-resilience/rate-limiting`.
   * @default { maxQueue: 10000, maxOrigins: 1000 }
   */
  rateLimit?: false | RateLimitOptions;
  /**
   * Whether answers are read for the rate-limit header dialects: the IETF draft `RateLimit` /
   * `RateLimit-Policy` fields, `X-RateLimit-*` (GitHub's, with `X-RateLimit-Resource`), OpenAI's
   * `x-ratelimit-*-requests` and Anthropic's `anthropic-ratelimit-requests-*`. They tell a call how
   * long a spent quota holds it and the rate limiter what to pace at. `Retry-After`, `retry-after-ms`
   * and `x-should-retry` are read either way. `false`: not read. In a browser build they are not
   * read by default: pass `rateLimitHeaders()` from `axios-resilience/rate-limit-headers`.
   * @default read (Node); not read (browser build)
   */
  rateLimitHeaders?: false | RateLimitHeaders;
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
   * retry is sent and no budget is spent. Any other value it returns is ignored.
   * @default undefined
   */
  onRetry?: (event: RetryEvent) => unknown;
  /**
   * Called exactly once when a call the plugin handled fails for good (any stop reason, a call
   * cancelled before it was sent included). What it throws is swallowed: the caller still gets
   * the call's own error. What it returns is ignored (a promise is not awaited).
   * @default undefined
   */
  onGiveUp?: (event: GiveUpEvent) => void;
  /**
   * Overrides the decision table for a failed attempt: `true` retries, `false` stops, `undefined`
   * (or nothing returned) keeps the table's decision (`ctx.decision`). Asked about failures only;
   * a response axios resolved goes to `shouldRetryResponse`. It never bypasses the guards: `retries`,
   * the deadline, the breaker, the budget and aborts still apply, a consumed stream body is never
   * re-sent, a cancelled call is never retried, and a write (POST, PATCH) that its server may have
   * processed is re-sent only as `unsafeRetryWrites` says, whatever this answers. May be async; if it
   * throws, the call fails with stop reason `'hook-failed'`.
   * @default undefined (the table decides)
   */
  shouldRetry?: (ctx: RetryContext) => boolean | undefined | void | Promise<boolean | undefined | void>;
  /**
   * Asked after every attempt whose response axios resolved (a 2xx, or any status your
   * `validateStatus` accepts): `true` retries it (a 2xx whose body says "pending", say), anything
   * else accepts it. When its retries run out the call resolves with the last response and
   * `retryState.stopReason` says why it stopped. The guards apply as for `shouldRetry`, the rule for
   * writes included (see `unsafeRetryWrites`). May be async; if it throws, the call fails with stop
   * reason `'hook-failed'`.
   * @default undefined (a resolved response is never retried)
   */
  shouldRetryResponse?: (ctx: RetryContext) => boolean | undefined | void | Promise<boolean | undefined | void>;
  /**
   * The wait before a retry, in ms, in place of the computed backoff: `ctx.computedMs` is what the
   * backoff chose, `ctx.serverMs` what the server asked for (`Retry-After` and the like), if it did.
   * Return `undefined` to keep the computed wait. The result is still capped by `maxDelayMs` and
   * the deadline, and a server's longer wait still wins.
   * @default undefined (the backoff decides)
   */
  delay?: (ctx: DelayContext) => number | undefined;
  /**
   * Re-send a POST or PATCH even where the server may have processed it and is not declared to
   * dedupe keys (`idempotencyKey.serverDedupes`): only for writes you know are idempotent, such as
   * a GraphQL query sent as a POST. Everything else that guards a retry still applies.
   * @default false
   */
  unsafeRetryWrites?: boolean;
  /**
   * Runs before every attempt, the first included, after the interceptors (which run once per
   * call): refresh a token, sign the request with a timestamp, take a token from a rate limiter.
   * Changing `config.headers` changes what this attempt sends. May be async; bounded by aborts,
   * `plugin.close()` and the deadline (a returned promise is awaited before the attempt is sent; any
   * other value is ignored). If it throws, the call fails with stop reason `'hook-failed'`.
   * @default undefined
   */
  beforeAttempt?: (config: InternalAxiosRequestConfig, info: AttemptInfo) => unknown;
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
   * Called when a hedged copy is sent. What it returns is ignored.
   * @default undefined
   */
  onHedge?: (event: HedgeEvent) => void;
  /**
   * Called when a breaker opens, goes half-open or closes. What it returns is ignored.
   * @default undefined
   */
  onCircuitStateChange?: (change: CircuitStateChange) => void;
  /**
   * Called when a rate limiter engages (the server began throttling) or relaxes: an origin's, or a
   * narrower scope's within it (`event.scope`: a quota the server names, a route). What it returns
   * is ignored.
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
