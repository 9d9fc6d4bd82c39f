/** The settings of the parts a call passes through: keys, the breaker, the rate limiter, hedging. */
import type { InternalAxiosRequestConfig } from 'axios';
import type { BreakerSync } from './guards';
import type { RateLimitStore } from './rate-limit-store';

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
   * Shares each origin's limiter with other processes (see `RateLimitStore`), so processes calling
   * one rate-limited API stay under its limit together. Without it each process paces alone.
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

/**
 * The rate-limit header dialects a plugin reads (see `rateLimitHeaders`): what `rateLimitHeaders()`
 * from `axios-resilience/rate-limit-headers` returns, which in a browser build carries their code.
 */
export interface RateLimitHeaders {
  /** Every dialect: the IETF `RateLimit` fields, `X-RateLimit-*`, OpenAI's and Anthropic's. */
  readonly dialects: 'all';
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
