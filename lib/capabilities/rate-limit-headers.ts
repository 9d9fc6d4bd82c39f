/**
 * `axios-resilience/rate-limit-headers`: the `rateLimitHeaders` option, carrying the rate-limit
 * header dialects' code where the build needs it. In Node the main entry reads them by itself and
 * `rateLimitHeaders()` returns `{ dialects: 'all' }`; in a browser build (the package's `browser`
 * export condition), which reads none by default, it attaches their readers, for the plugin it is
 * given to: `retryPlugin({ rateLimitHeaders: rateLimitHeaders() })`. The dialects: the IETF draft
 * `RateLimit` / `RateLimit-Policy` fields, `X-RateLimit-*`, OpenAI's `x-ratelimit-*-requests` and
 * Anthropic's `anthropic-ratelimit-requests-*`. `Retry-After`, `retry-after-ms` and
 * `x-should-retry` are read without it.
 * @module axios-resilience/rate-limit-headers
 */
import type { RateLimitHeaders } from '../types';

/** The `rateLimitHeaders` option: every dialect read (a browser build carries their code only with this). */
export function rateLimitHeaders(): RateLimitHeaders {
  return { dialects: 'all' };
}
