/**
 * `axios-resilience/rate-limit-headers` in a browser build: `rateLimitHeaders()` returns the
 * `rateLimitHeaders` option with the dialects' readers attached (IETF `RateLimit`, `X-RateLimit-*`,
 * OpenAI's, Anthropic's), which the browser entry leaves out: only the plugin given it reads them.
 * @module axios-resilience/rate-limit-headers
 */
import { EVERY_DIALECT } from '../policy/rate-limit-header-options';
import type { RateLimitHeaders } from '../types';
import { withCapability } from './capability';

export function rateLimitHeaders(): RateLimitHeaders {
  return withCapability({ dialects: 'all' }, EVERY_DIALECT);
}
