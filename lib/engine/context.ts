import type { InternalAxiosRequestConfig } from 'axios';
import type { BreakerRegistry } from '../guards/breaker';
import type { CorsEvidence } from '../guards/cors';
import type { RateLimiters } from '../guards/rate-limiters';
import type { LocalBudget } from '../guards/local-budget';
import type { BoundedMap } from '../guards/origins';
import type { BudgetSettings, RetryBudgetLike } from '../types';
import type { Dialects } from '../policy/rate-limit-header-options';
import type { Listeners } from './listeners';

/** What the calls of one plugin share (made once by `retryPlugin()`). */
export interface Shared {
  /** The retry budget every origin shares (`budget: { shared }`); else `undefined`. */
  budget: RetryBudgetLike | undefined;
  /** With a budget per origin: the budgets, each made on its origin's first call, and their settings. */
  budgets: BoundedMap<LocalBudget> | undefined;
  budgetSettings: BudgetSettings | undefined;
  breakers: BreakerRegistry | undefined;
  /** Which breaker guards a call, when `breaker.key` is set (else its origin). */
  breakerKey: ((config: InternalAxiosRequestConfig, origin: string) => string) | undefined;
  /** Which rate limiter paces a call, when `rateLimit.key` is set (else its origin). */
  limiterKey: ((config: InternalAxiosRequestConfig) => string) | undefined;
  /** Ends pending waits and hooks when the plugin closes. */
  closers: Set<() => void>;
  /** Set by plugin.close(): from then on no call starts a new wait. */
  closed: boolean;
  now: () => number;
  /** Which cross-origin APIs answered a request carrying the plugin's headers (browsers only). */
  cors: CorsEvidence;
  /** The rate limiters of throttled origins; `undefined` with `rateLimit: false`. */
  limiters: RateLimiters | undefined;
  /** The rate-limit header dialects answers are read for (`rateLimitHeaders`); `undefined`: none. */
  dialects: Dialects | undefined;
  /** Observers added with `plugin.on()`. */
  listeners: Listeners;
}
