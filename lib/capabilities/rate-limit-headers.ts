/**
 * `axios-resilience/rate-limit-headers`. In Node the main entry reads the rate-limit header
 * dialects by itself and `useRateLimitHeaders()` does nothing; in a browser build (the package's
 * `browser` export condition) it makes every plugin of the page read them: the IETF draft
 * `RateLimit` / `RateLimit-Policy` fields, `X-RateLimit-*`, OpenAI's `x-ratelimit-*-requests` and
 * Anthropic's `anthropic-ratelimit-requests-*`. `Retry-After`, `retry-after-ms` and
 * `x-should-retry` are read without it.
 * @module axios-resilience/rate-limit-headers
 */

/** Reads the rate-limit header dialects in every plugin (a browser build leaves them out until this is called). */
export function useRateLimitHeaders(): void {}
