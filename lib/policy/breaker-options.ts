import type { BreakerOptions } from '../types';
import { DEFAULTS, MAX_TIMER_MS } from './defaults';
import { fail, fn, isPlainObject, nonNegative, own, typed, unknownName, wholeNumber } from './validate';

/**
 * The breaker's settings. In its own file so the browser build can leave it out: there the
 * breaker comes only with `breaker()` from `axios-resilience/breaker` (`browser/breaker-options.ts`).
 */

/** The breaker's settings, every default filled in. */
export interface ResolvedBreakerOptions {
  errorThresholdPercentage: number;
  volumeThreshold: number;
  resetTimeout: number;
  maxResetTimeout: number;
  rollingCountTimeout: number;
  rollingCountBuckets: number;
  maxOrigins: number;
  key: BreakerOptions['key'];
  shared: BreakerOptions['shared'];
}

/**
 * opossum options the plugin sets itself or cannot honour, and what to use instead. Everything
 * else unknown is refused too: a misspelt option must not be silently ignored.
 */
const BREAKER_REFUSED: Record<string, string> = {
  timeout: "axios's own `timeout` (per attempt) and `deadlineMs` (per call)",
  errorFilter: '`statusCodes` and `errorCodes`: only their failures count against the breaker',
  rotateBucketController: 'nothing: the plugin rotates every breaker on one shared timer',
  enableSnapshots: 'nothing: snapshots stay off so a thousand origins do not mean a thousand timers',
  cache: 'a caching layer such as axios-cache-interceptor',
  coalesce: 'a caching layer such as axios-cache-interceptor',
  capacity: 'a concurrency limiter in front of axios',
  name: '`key`',
  group: '`key`',
};
const BREAKER_FIELDS = new Set([...Object.keys(DEFAULTS.breaker), 'key', 'shared']);

export function resolveBreaker(value: unknown): false | ResolvedBreakerOptions {
  if (value === false) return false;
  const input = value === undefined ? {} : value;
  if (!isPlainObject(input))
    fail(
      '',
      'breaker',
      'E33',
      process.env.NODE_ENV !== 'production' && `must be false or an options object, got ${typed(input)}`,
    );
  for (const key of Object.keys(input)) {
    if (BREAKER_FIELDS.has(key)) continue;
    const instead = Object.prototype.hasOwnProperty.call(BREAKER_REFUSED, key) ? BREAKER_REFUSED[key] : undefined;
    fail(
      '',
      `breaker.${key}`,
      instead ? 'E64' : 'E1',
      process.env.NODE_ENV !== 'production' &&
        (instead ? `cannot be set here; use ${instead}` : unknownName(key, BREAKER_FIELDS, 'breaker option')),
    );
  }
  const defaults = DEFAULTS.breaker;
  const number = (field: keyof typeof defaults, fallback: number = defaults[field]): number =>
    nonNegative('', `breaker.${field}`, own(input, field), fallback);
  const resetTimeout = number('resetTimeout');
  const result: ResolvedBreakerOptions = {
    errorThresholdPercentage: number('errorThresholdPercentage'),
    volumeThreshold: number('volumeThreshold'),
    resetTimeout,
    // A first wait above the default cap raises the cap: the wait then stays where the user put it.
    maxResetTimeout: number('maxResetTimeout', Math.max(defaults.maxResetTimeout, resetTimeout)),
    rollingCountTimeout: number('rollingCountTimeout'),
    rollingCountBuckets: number('rollingCountBuckets'),
    maxOrigins: number('maxOrigins'),
    key: fn<BreakerOptions['key']>('', 'breaker.key', own(input, 'key'), undefined),
    shared: own(input, 'shared') as BreakerOptions['shared'],
  };
  if (result.maxResetTimeout > MAX_TIMER_MS)
    fail(
      '',
      'breaker.maxResetTimeout',
      'E34',
      process.env.NODE_ENV !== 'production' &&
        `must be at most ${MAX_TIMER_MS} (2^31 - 1), got ${result.maxResetTimeout}`,
    );
  if (result.resetTimeout > result.maxResetTimeout) {
    fail(
      '',
      'breaker.resetTimeout',
      'E35',
      process.env.NODE_ENV !== 'production' &&
        `(${result.resetTimeout}) must not be above maxResetTimeout (${result.maxResetTimeout})`,
    );
  }
  // opossum (and the browser's breaker) open when the failure rate is above it: at 100 or more, never.
  if (result.errorThresholdPercentage >= 100) {
    fail(
      '',
      'breaker.errorThresholdPercentage',
      'E36',
      process.env.NODE_ENV !== 'production' &&
        `must be from 0 to below 100 (the breaker opens above it), got ${result.errorThresholdPercentage}`,
    );
  }
  wholeNumber('', 'breaker.maxOrigins', result.maxOrigins, 1, 1);
  if (result.rollingCountBuckets < 1)
    fail(
      '',
      'breaker.rollingCountBuckets',
      'E37',
      process.env.NODE_ENV !== 'production' && `must be at least 1, got ${result.rollingCountBuckets}`,
    );
  const shared = result.shared as unknown;
  if (shared !== undefined && (shared === null || typeof (shared as { announce?: unknown }).announce !== 'function'))
    fail(
      '',
      'breaker.shared',
      'E38',
      process.env.NODE_ENV !== 'production' &&
        `must be a BreakerSync (e.g. redisBreakerSync(client)), got ${typed(shared)}`,
    );
  return result;
}
