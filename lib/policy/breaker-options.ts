import type { BreakerOptions } from '../types';
import { DEFAULTS, MAX_TIMER_MS } from './defaults';
import { fail, fn, isPlainObject, nonNegative, own, wholeNumber } from './validate';

/**
 * The breaker's settings. In its own file so the browser build can leave it out: there the
 * breaker comes only with `breaker()` from `axios-resilience/breaker` (`browser/breaker-gate.ts`).
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
 * opossum options the plugin sets itself or cannot honour (E64's words say what to use instead).
 * Everything else unknown is refused too: a misspelt option must not be silently ignored.
 */
const REFUSED = [
  'timeout',
  'errorFilter',
  'rotateBucketController',
  'enableSnapshots',
  'cache',
  'coalesce',
  'capacity',
  'name',
  'group',
] as const;
export type RefusedBreakerOption = (typeof REFUSED)[number];
const BREAKER_REFUSED: ReadonlySet<string> = new Set(REFUSED);
const BREAKER_FIELDS = new Set([...Object.keys(DEFAULTS.breaker), 'key', 'shared']);

export function resolveBreaker(value: unknown): false | ResolvedBreakerOptions {
  if (value === false) return false;
  const input = value === undefined ? {} : value;
  if (!isPlainObject(input)) fail('', 'breaker', 'E33', input);
  for (const key of Object.keys(input)) {
    if (BREAKER_FIELDS.has(key)) continue;
    if (BREAKER_REFUSED.has(key)) fail('', `breaker.${key}`, 'E64', key as RefusedBreakerOption);
    fail('', `breaker.${key}`, 'E1', key, BREAKER_FIELDS, undefined, 'breaker option');
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
  const { maxResetTimeout } = result;
  if (maxResetTimeout > MAX_TIMER_MS) fail('', 'breaker.maxResetTimeout', 'E34', maxResetTimeout);
  if (resetTimeout > maxResetTimeout) fail('', 'breaker.resetTimeout', 'E35', resetTimeout, maxResetTimeout);
  // opossum (and the browser's breaker) open when the failure rate is above it: at 100 or more, never.
  const threshold = result.errorThresholdPercentage;
  if (threshold >= 100) fail('', 'breaker.errorThresholdPercentage', 'E36', threshold);
  wholeNumber('', 'breaker.maxOrigins', result.maxOrigins, 1, 1);
  if (result.rollingCountBuckets < 1) fail('', 'breaker.rollingCountBuckets', 'E37', result.rollingCountBuckets);
  const shared = result.shared as unknown;
  if (shared !== undefined && (shared === null || typeof (shared as { announce?: unknown }).announce !== 'function'))
    fail('', 'breaker.shared', 'E38', shared);
  return result;
}
