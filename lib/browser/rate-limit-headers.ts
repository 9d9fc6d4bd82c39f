/**
 * `axios-resilience/rate-limit-headers` in a browser build: `useRateLimitHeaders()` makes every
 * plugin of the page read the rate-limit header dialects (IETF `RateLimit`, `X-RateLimit-*`,
 * OpenAI's, Anthropic's), which the browser entry leaves out.
 * @module axios-resilience/rate-limit-headers
 */
import * as dialects from '../policy/rate-limit-dialects';
import { readDialects } from './dialects-slot';

export function useRateLimitHeaders(): void {
  readDialects(dialects);
}
