/**
 * Every default, in one object: options resolve from it, and a test holds the README's options
 * table and the `@default` text of the public types to it.
 */

/** The largest delay a JavaScript timer honours; a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * 408: RFC 9110 §15.5.9 — the server did not process the request and the client may repeat it.
 * 529: "overloaded" (Anthropic's API), retried as a 503 is.
 */
export const DEFAULT_STATUS_CODES: readonly number[] = [408, 429, 502, 503, 504, 529];

/** Errors with no response that mean the network, not the request, failed. */
export const DEFAULT_ERROR_CODES: readonly string[] = [
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'ESOCKETTIMEDOUT',
  // undici's dropped socket, under the fetch adapter's generic ERR_NETWORK.
  'UND_ERR_SOCKET',
  'ERR_NETWORK',
];

/**
 * The clock when none is injected: `Date.now` read at each call, not captured, so fake timers
 * installed after the plugin was made (jest, vitest, sinon replace `Date.now` on the global) are
 * honoured as they are by a plugin made after them.
 */
export const systemClock = (): number => Date.now();

export const DEFAULTS = {
  retries: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  jitter: 'full',
  statusCodes: DEFAULT_STATUS_CODES,
  errorCodes: DEFAULT_ERROR_CODES,
  idempotencyKey: { header: 'Idempotency-Key', methods: ['POST', 'PATCH'], serverDedupes: false },
  retryAfter: 'clamp',
  unsafeRetryWrites: false,
  budget: { ratio: 0.1, minPerSecond: 10, windowMs: 10_000, maxOrigins: 1000 },
  breaker: {
    errorThresholdPercentage: 50,
    volumeThreshold: 10,
    resetTimeout: 2000,
    maxResetTimeout: 60_000,
    rollingCountTimeout: 10_000,
    rollingCountBuckets: 10,
    maxOrigins: 1000,
  },
  rateLimit: { maxQueue: 10_000, maxOrigins: 1000 },
  hedge: false,
  attemptHeader: false,
  /** 8 MiB: a typical upload kept for a retry; bigger ones are streamed once (or given a `body` factory). */
  replay: { maxBytes: 8 * 1024 * 1024 },
  /** The fields of `hedge: { delayMs }` when hedging is on. */
  hedgeFields: { maxHedges: 1, minDelayMs: 5, fallbackDelayMs: 100 },
  /** The header `attemptHeader: true` names. */
  attemptHeaderName: 'X-Retry-Attempt',
  /** How a `RetryBudget` talks to a shared store (`budget.store`). */
  budgetStore: { flushIntervalMs: 100, storeTimeoutMs: 100 },
} as const;
