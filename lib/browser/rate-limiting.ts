/**
 * `axios-resilience/rate-limiting` in a browser build: `rateLimiting(options)` returns the
 * `rateLimit` options with the rate limiter's code attached, so only the app that paces its calls
 * ships it.
 * @module axios-resilience/rate-limiting
 */
import * as gate from '../engine/rate-gate';
import { resolveRateLimit } from '../policy/rate-limit-options';
import type { RateLimitOptions } from '../types';
import { withCapability } from './capability';
import type { RateLimitCapability } from './rate-gate';

const code: RateLimitCapability = { resolve: resolveRateLimit, gate };

export function rateLimiting(options: RateLimitOptions = {}): RateLimitOptions {
  return withCapability(options, code);
}
