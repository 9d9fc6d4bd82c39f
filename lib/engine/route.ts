import type { InternalAxiosRequestConfig } from 'axios';
import type { Guard } from '../guards/breaker';
import { LocalBudget } from '../guards/local-budget';
import { originOf } from '../policy/origin';
import { BreakerGate } from './breaker-gate';
import type { CallRun } from './call-run';
import type { Shared } from './context';
import type { ResolvedOptions } from '../policy/options';
import type { RetryBudgetLike, RetryState } from '../types';

/**
 * The origin-scoped parts of a call: where its attempts go, and the guards that count them there.
 * A call gets one when it reaches the adapter and a new one whenever a hook (`onRetry`,
 * `beforeAttempt`) sends it to another origin, so each attempt is accounted to the origin it is
 * sent to. A new per-origin guard is one more field here.
 */
export interface Route {
  readonly origin: string;
  /** Which breaker guards the call here: `breaker.key(config, origin)`, or the origin. */
  readonly breakerKey: string;
  /** `rateLimit.key(config)`, when set: the call's one rate-limit scope here (else the scope follows the answers). */
  readonly userKey: string | undefined;
  readonly budget: RetryBudgetLike | undefined;
  readonly guard: Guard | undefined;
  /** In a browser, cross-origin, with the plugin's headers: an ERR_NETWORK may be a CORS refusal. */
  readonly corsSensitive: boolean;
}

/** What a route is made from: the plugin's shared parts. */
export type RouteSources = Pick<
  Shared,
  'budget' | 'budgets' | 'budgetSettings' | 'now' | 'breakers' | 'breakerKey' | 'limiterKey' | 'cors'
>;

/** The origin a config sends to now. */
export function destination(config: InternalAxiosRequestConfig): string {
  return originOf(config.url, config.baseURL);
}

/**
 * The route to `origin`. Its breaker is the origin's, or the call's route's own (`endpoint()`) when
 * that route was found failing while its siblings succeed (`Guard.failureTarget`) and the origin's
 * is closed. Throws when `breaker.key()` or `rateLimit.key()` does.
 */
export function routeTo(
  origin: string,
  config: InternalAxiosRequestConfig,
  shared: RouteSources,
  state: RetryState,
  options: ResolvedOptions,
  endpoint: () => string,
): Route {
  const breakerKey = shared.breakerKey === undefined ? origin : shared.breakerKey(config, origin);
  const guard = shared.breakers?.for(breakerKey);
  // One object literal: it is made whole, where a class instance would be built field by field.
  return {
    origin,
    breakerKey,
    userKey: shared.limiterKey === undefined ? undefined : shared.limiterKey(config),
    budget:
      shared.budgets === undefined
        ? shared.budget
        : shared.budgets.getOrCreate(origin, () => new LocalBudget(shared.budgetSettings!, shared.now)),
    // A `breaker.key` of the caller's is the call's one breaker: no route of its own.
    guard:
      guard?.failing === undefined || !guard.closed || shared.breakerKey !== undefined
        ? guard
        : (guard.routeGuard(endpoint()) ?? guard),
    // In Node there is no page: nothing to ask.
    corsSensitive: shared.cors.page !== undefined && shared.cors.applies(origin, state, options),
  };
}

/** `run`'s passage through `route`'s breaker; `counted`: its first attempt was counted there already. */
export function gateFor(run: CallRun, route: Route, counted: boolean): BreakerGate {
  return new BreakerGate(
    route.guard,
    run.shared.breakers,
    route.breakerKey,
    run.isDownstreamFailure,
    // A `breaker.key` of the caller's is the call's one breaker: no route of its own.
    run.shared.breakerKey === undefined ? run.endpoint : undefined,
    counted,
  );
}
