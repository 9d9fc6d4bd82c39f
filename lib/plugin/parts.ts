import type { Shared } from '../engine/context';
import { Listeners, notify } from '../engine/listeners';
import { chainFor } from '../engine/pipeline';
import { limitersFor } from '../engine/rate-gate';
import { BreakerRegistry } from '../guards/breaker';
import { CorsEvidence } from '../guards/cors';
import type { LocalBudget } from '../guards/local-budget';
import { BoundedMap } from '../guards/origins';
import type { ResolvedPluginOptions } from '../policy/options';
import { checkedKey } from '../policy/misuse';
import type { CircuitStateChange, RateLimitEvent } from '../types';

/**
 * What the calls of one plugin share, made once by `retryPlugin()`: the budgets (one shared
 * `RetryBudget`, or one per origin, made on first use), the breakers, the
 * CORS evidence, the clock and the closers of pending waits.
 */
export function sharedParts(resolved: ResolvedPluginOptions): {
  shared: Shared;
  budgets: BoundedMap<LocalBudget> | undefined;
} {
  const budgetSetting = resolved.budget;
  const perOrigin = budgetSetting !== false && 'perOrigin' in budgetSetting ? budgetSetting.perOrigin : undefined;
  const budgets = perOrigin === undefined ? undefined : new BoundedMap<LocalBudget>(perOrigin.maxOrigins);
  const breaker = resolved.breaker;
  const key = breaker === false ? undefined : breaker.key;
  const rateKey = resolved.rateLimit === false ? undefined : resolved.rateLimit.key;
  // plugin.on() listeners hear a state change first, then the hook (what it throws is dropped).
  const listeners = new Listeners();
  const onCircuitStateChange = resolved.onCircuitStateChange;
  const circuitChanged = (change: CircuitStateChange): void => {
    listeners.emit('circuitStateChange', change);
    notify(onCircuitStateChange, change);
  };
  const onRateLimit = resolved.onRateLimit;
  const rateLimitChanged = (event: RateLimitEvent): void => {
    listeners.emit('rateLimit', event);
    notify(onRateLimit, event);
  };
  const shared: Shared = {
    budget: budgetSetting !== false && 'shared' in budgetSetting ? budgetSetting.shared : undefined,
    budgets,
    budgetSettings:
      perOrigin === undefined
        ? undefined
        : { ratio: perOrigin.ratio, minPerSecond: perOrigin.minPerSecond, windowMs: perOrigin.windowMs },
    breakers: breaker === false ? undefined : new BreakerRegistry(breaker, circuitChanged, resolved.call.random),
    breakerKey: key === undefined ? undefined : (config, origin) => checkedKey('breaker.key()', key(config, origin)),
    limiterKey: rateKey === undefined ? undefined : (config) => checkedKey('rateLimit.key()', rateKey(config)),
    closers: new Set(),
    closed: false,
    now: resolved.now,
    cors: new CorsEvidence(),
    limiters: limitersFor(resolved.rateLimit, resolved.now, rateLimitChanged),
    dialects: resolved.dialects,
    listeners,
  };
  chainFor(resolved.call, shared.limiters !== undefined);
  return { shared, budgets };
}
