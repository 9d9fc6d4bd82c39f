/**
 * axios-resilience: retries for axios that do not charge a customer twice.
 * @module axios-resilience
 */
import './augment';

export { retryPlugin } from './plugin/plugin';
export type { RetryPlugin } from './plugin/plugin';
export { RetryBudget } from './guards/budget';
export type { RetryBudgetOptions } from './guards/budget';
export { CircuitOpenError } from './types/errors';
export { parseRetryAfter } from './policy/retry-after';
export { DEFAULT_ERROR_CODES, DEFAULT_STATUS_CODES } from './policy/options';
export { isRetryableFailure } from './engine/judge';
export type { RetryableFailureOptions } from './engine/judge';
export type {
  BreakerOptions,
  BreakerSync,
  BudgetSettings,
  BudgetStore,
  ChaosErrorFault,
  ChaosFault,
  ChaosFaultBase,
  ChaosInjection,
  ChaosLatencyFault,
  ChaosMatch,
  ChaosOptions,
  ChaosStatusFault,
  CircuitBreakerView,
  CircuitState,
  CircuitStateChange,
  DelayContext,
  GiveUpEvent,
  IdempotencyKeyOptions,
  JitterStrategy,
  LimiterState,
  PluginEventName,
  PluginEvents,
  RateLimitEvent,
  RateLimitFleetState,
  RateLimitGrant,
  RateLimitHeaders,
  RateLimitOptions,
  PacingThrottle,
  RateLimitPacing,
  RateLimitReport,
  RateLimitSchedule,
  RateLimitStore,
  RateLimiterView,
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
  SettleEvent,
  StopReason,
  StoreEvent,
} from './types';
