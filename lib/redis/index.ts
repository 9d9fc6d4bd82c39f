/**
 * `axios-resilience/redis`: one retry budget and one breaker state for many processes. Node only;
 * bring your own ioredis client (an optional peer dependency, never imported by this package).
 * @module axios-resilience/redis
 */
export { redisBudgetStore } from './budget-store';
export type { RedisBudgetStoreOptions } from './budget-store';
export { redisBreakerSync } from './breaker-sync';
export type { RedisBreakerSyncOptions } from './breaker-sync';
export type { RedisClient, RedisSubscriber } from './client';
export type { BudgetStore, BudgetSettings, BreakerSync, StoreEvent } from '../types';
export { redisRateLimitStore } from './rate-limit-store';
export type { RedisRateLimitStoreOptions } from './rate-limit-store';
export { SharedPacing } from './shared-pacing';
export type {
  RateLimitStore,
  RateLimitSchedule,
  PacingThrottle,
  RateLimitPacing,
  RateLimitGrant,
  RateLimitReport,
  RateLimitFleetState,
} from '../types';
