/**
 * axios-resilience: retries for axios that do not charge a customer twice.
 * @module axios-resilience
 */
import './augment';

export { retryPlugin } from './plugin';
export type { RetryPlugin } from './plugin';
export { RetryBudget } from './budget';
export type { RetryBudgetOptions } from './budget';
export { CircuitOpenError } from './errors';
export { parseRetryAfter, parseHttpDate } from './retry-after';
export { computeBackoff, fullJitter, equalJitter, decorrelatedJitter, noJitter } from './backoff';
export type { BackoffInput } from './backoff';
export { DEFAULT_ERROR_CODES, DEFAULT_STATUS_CODES } from './options';
export { isRetryableFailure } from './classify';
export type { RetryableFailureOptions } from './classify';
export type {
  BreakerOptions,
  BreakerSync,
  BudgetSettings,
  BudgetStore,
  CircuitBreakerView,
  CircuitState,
  CircuitStateChange,
  GiveUpEvent,
  IdempotencyKeyOptions,
  JitterStrategy,
  RetryEvent,
  RetryPluginOptions,
  AttemptInfo,
  HedgeEvent,
  HedgeOptions,
  RetryBudgetLike,
  RetryContext,
  RetryDecision,
  RetryBudgetState,
  RetryRequestOptions,
  RetryState,
  StopReason,
  StoreEvent,
} from './types';
