/**
 * `axios-resilience/rate-limiting`. In Node the main entry has the adaptive rate limiter on by
 * default and `rateLimiting(options)` returns `options` as they are (`{}` without any); in a browser
 * build (the package's `browser` export condition), whose plugin has no cross-call limiter by
 * default, it attaches the limiter's code to them. Either way:
 * `retryPlugin({ rateLimit: rateLimiting({ maxQueue: 100 }) })`.
 * @module axios-resilience/rate-limiting
 */
import type { RateLimitOptions } from '../types';

/**
 * The `rateLimit` option, carrying the rate limiter's code where the build needs it (a browser build).
 * @param options as for `rateLimit` (`maxQueue`, `maxOrigins`, `key`, `shared`)
 */
export function rateLimiting(options: RateLimitOptions = {}): RateLimitOptions {
  return options;
}
