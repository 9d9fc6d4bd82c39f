/**
 * `axios-resilience/rate-limit-headers` in a browser build: `rateLimitHeaders()` returns the
 * `rateLimitHeaders` option with the dialects' readers attached (IETF `RateLimit`, `X-RateLimit-*`,
 * OpenAI's, Anthropic's), which the browser entry leaves out: only the plugin given it reads them.
 * @module axios-resilience/rate-limit-headers
 */
import { mayBeSpent, parseRateLimitHeaders } from '../policy/rate-limit-dialects';
import type { Dialects } from '../policy/rate-limit-header-options';
import type { RateLimitHeaders } from '../types';
import { withCapability } from './capability';

const code: Dialects = { parseRateLimitHeaders, mayBeSpent };

export function rateLimitHeaders(): RateLimitHeaders {
  return withCapability({ dialects: 'all' }, code);
}
