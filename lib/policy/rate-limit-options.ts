/**
 * The plugin's `rateLimit` option: `false`, or the rate limiters' settings with every default filled
 * in. A browser build carries this (and the limiters) only where `rateLimiting()` from
 * `axios-resilience/rate-limiting` brings it (`browser/rate-gate.ts`).
 */
import type { InternalAxiosRequestConfig } from 'axios';
import type { RateLimitStore } from '../types';
import { DEFAULTS } from './defaults';
import { fail, fn, optionsObject, own, wholeNumber } from './validate';

/** The rate limiter's settings, every default filled in. */
export interface ResolvedRateLimit {
  maxQueue: number;
  maxOrigins: number;
  shared: RateLimitStore | undefined;
  key: ((config: InternalAxiosRequestConfig) => string) | undefined;
}

const RATE_LIMIT_FIELDS = new Set([...Object.keys(DEFAULTS.rateLimit), 'shared', 'key']);

export function resolveRateLimit(value: unknown): false | ResolvedRateLimit {
  if (value === false) return false;
  const input = optionsObject('', 'rateLimit', value === undefined ? {} : value, RATE_LIMIT_FIELDS, 'E42');
  const defaults = DEFAULTS.rateLimit;
  const shared = own(input, 'shared') as RateLimitStore | null | undefined;
  if (shared !== undefined && typeof shared?.pacing !== 'function') fail('', 'rateLimit.shared', 'E43', shared);
  return {
    maxQueue: wholeNumber('', 'rateLimit.maxQueue', own(input, 'maxQueue'), defaults.maxQueue, 1),
    maxOrigins: wholeNumber('', 'rateLimit.maxOrigins', own(input, 'maxOrigins'), defaults.maxOrigins, 1),
    shared,
    key: fn('', 'rateLimit.key', own(input, 'key'), undefined),
  };
}
