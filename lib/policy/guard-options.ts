import type { BreakerOptions, BudgetSettings, RetryBudgetLike } from '../types';
import { DEFAULTS, MAX_TIMER_MS } from './defaults';
import {
  checkKnown,
  fail,
  fn,
  given,
  isPlainObject,
  nonNegative,
  own,
  typed,
  unknownName,
  wholeNumber,
} from './validate';

/** The settings of the guards a plugin shares between its calls: the retry budget and the breakers. */

/** `shared`: one budget for every call; `perOrigin`: the settings of one budget per origin. */
export type ResolvedBudget =
  false | { shared: RetryBudgetLike } | { perOrigin: BudgetSettings & { maxOrigins: number } };

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

const BUDGET_FIELDS = new Set(['ratio', 'minPerSecond', 'windowMs', 'maxOrigins']);

/** A budget number: finite, not negative, and for a window or an interval not zero either. */
export function budgetNumber(field: string, value: unknown, fallback: number, positive: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (positive && value === 0)) {
    fail('', `budget.${field}`, `must be a finite number ${positive ? '> 0' : '>= 0'}, got ${given(value, 'number')}`);
  }
  return value;
}

/**
 * The budget's ratio is a share of first attempts, 0 to 1: at 1 retries may double the load, which
 * is already past what a budget is for (bounding a retry storm); more than that is no budget at
 * all (`budget: false` says so plainly), and a value above 1 is most often a percentage (`10` for
 * 10 %) that would let every call retry ten times.
 */
function budgetRatio(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
    fail('', 'budget.ratio', `must be a share from 0 to 1 (0.1 is 10 %), got ${given(value, 'number')}`);
  }
  return value;
}

/** Ratio, floor and window of a budget (`new RetryBudget()` and the plugin's `budget` option alike). */
export function budgetSettings(input: { ratio?: unknown; minPerSecond?: unknown; windowMs?: unknown }): BudgetSettings {
  const defaults = DEFAULTS.budget;
  return {
    ratio: budgetRatio(input.ratio, defaults.ratio),
    minPerSecond: budgetNumber('minPerSecond', input.minPerSecond, defaults.minPerSecond, false),
    windowMs: budgetNumber('windowMs', input.windowMs, defaults.windowMs, true),
  };
}

export function resolveBudget(value: unknown): ResolvedBudget {
  if (value === false) return false;
  // A shared budget: a RetryBudget, or anything that keeps the same promises.
  if (typeof (value as RetryBudgetLike | null)?.tryWithdraw === 'function') return { shared: value as RetryBudgetLike };
  const input = value === undefined ? {} : value;
  if (!isPlainObject(input))
    fail('', 'budget', `must be false, a RetryBudget or an options object, got ${typed(input)}`);
  checkKnown('budget.', input, BUDGET_FIELDS);
  const settings = budgetSettings({
    ratio: own(input, 'ratio'),
    minPerSecond: own(input, 'minPerSecond'),
    windowMs: own(input, 'windowMs'),
  });
  const maxOrigins = wholeNumber('', 'budget.maxOrigins', own(input, 'maxOrigins'), DEFAULTS.budget.maxOrigins, 1);
  return { perOrigin: { ...settings, maxOrigins } };
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
  if (!isPlainObject(input)) fail('', 'breaker', `must be false or an options object, got ${typed(input)}`);
  for (const key of Object.keys(input)) {
    if (BREAKER_FIELDS.has(key)) continue;
    const instead = Object.prototype.hasOwnProperty.call(BREAKER_REFUSED, key) ? BREAKER_REFUSED[key] : undefined;
    fail(
      '',
      `breaker.${key}`,
      instead ? `cannot be set here; use ${instead}` : unknownName(key, BREAKER_FIELDS, 'breaker option'),
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
    fail('', 'breaker.maxResetTimeout', `must be at most ${MAX_TIMER_MS} (2^31 - 1), got ${result.maxResetTimeout}`);
  if (result.resetTimeout > result.maxResetTimeout) {
    const problem = `(${result.resetTimeout}) must not be above maxResetTimeout (${result.maxResetTimeout})`;
    fail('', 'breaker.resetTimeout', problem);
  }
  // opossum (and the browser's breaker) open when the failure rate is above it: at 100 or more, never.
  if (result.errorThresholdPercentage >= 100) {
    const problem = `must be from 0 to below 100 (the breaker opens above it), got ${result.errorThresholdPercentage}`;
    fail('', 'breaker.errorThresholdPercentage', problem);
  }
  wholeNumber('', 'breaker.maxOrigins', result.maxOrigins, 1, 1);
  if (result.rollingCountBuckets < 1)
    fail('', 'breaker.rollingCountBuckets', `must be at least 1, got ${result.rollingCountBuckets}`);
  const shared = result.shared as unknown;
  if (shared !== undefined && (shared === null || typeof (shared as { announce?: unknown }).announce !== 'function'))
    fail('', 'breaker.shared', `must be a BreakerSync (e.g. redisBreakerSync(client)), got ${typed(shared)}`);
  return result;
}
