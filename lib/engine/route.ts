import type { InternalAxiosRequestConfig } from 'axios';
import type { BreakerRegistry, Guard } from '../guards/breaker';
import type { CorsEvidence } from '../guards/cors';
import { originOf, parseOrigin } from '../policy/origin';
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

/** What a route is made from: the plugin's shared parts (`Shared`), named here so this file imports no other. */
export interface RouteSources {
  budgetFor(origin: string): RetryBudgetLike | undefined;
  breakers: BreakerRegistry | undefined;
  breakerKey: ((config: InternalAxiosRequestConfig, origin: string) => string) | undefined;
  limiterKey: ((config: InternalAxiosRequestConfig) => string) | undefined;
  cors: CorsEvidence;
}

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
    budget: shared.budgetFor(origin),
    // A `breaker.key` of the caller's is the call's one breaker: no route of its own.
    guard:
      guard?.failing === undefined || !guard.closed || shared.breakerKey !== undefined
        ? guard
        : (guard.routeGuard(endpoint()) ?? guard),
    // In Node there is no page: nothing to ask.
    corsSensitive: shared.cors.page !== undefined && shared.cors.applies(origin, state, options),
  };
}

/** Which breaker guards the call at `origin`: `breaker.key(config, origin)`, or the origin. Throws when `breaker.key()` does. */
function breakerKeyOf(origin: string, config: InternalAxiosRequestConfig, shared: RouteSources): string {
  return shared.breakerKey === undefined ? origin : shared.breakerKey(config, origin);
}

/** The breaker guard of `origin` for this call; `undefined` with no breaker, or when `breaker.key()` throws. */
export function guardAt(origin: string, config: InternalAxiosRequestConfig, shared: RouteSources): Guard | undefined {
  try {
    return shared.breakers?.for(breakerKeyOf(origin, config, shared));
  } catch {
    return undefined;
  }
}

/**
 * The origin that answered an attempt sent to `sentTo`, when Node's http adapter followed a redirect
 * to another one: follow-redirects names the last URL on the response (`request.res.responseUrl`)
 * and on a transport error's request (`_currentUrl`). The call is then accounted there, to its
 * breaker and retry budget, not to the origin that only redirected it. The fetch and xhr adapters do
 * not say where they were redirected: a call through them stays with the origin it was sent to.
 * `undefined`: answered where it was sent.
 */
export function answeredBy(outcome: { response?: unknown; error?: unknown }, sentTo: string): string | undefined {
  const holder = (outcome.response ?? outcome.error) as
    { request?: LastRequest | null; response?: { request?: LastRequest | null } } | null | undefined;
  const request = holder?.response?.request ?? holder?.request;
  const url = request?.res?.responseUrl ?? request?._currentUrl;
  if (typeof url !== 'string' || startsWithOrigin(url, sentTo)) return undefined;
  // `sentTo` names a default port (`https://host:443`) that a URL leaves out.
  const port = sentTo.slice(sentTo.lastIndexOf(':'));
  const bare = sentTo.slice(0, -port.length);
  if ((port === ':443' || port === ':80') && startsWithOrigin(url, bare)) return undefined;
  const origin = parseOrigin(url);
  return origin === sentTo ? undefined : origin;
}

/** `url` is at `origin` (a string test, before any parsing: this runs on every answer). */
function startsWithOrigin(url: string, origin: string): boolean {
  if (!url.startsWith(origin)) return false;
  const next = url.charCodeAt(origin.length);
  // End, '/', '?' or '#': not a longer host or port that begins the same.
  return Number.isNaN(next) || next === 47 || next === 63 || next === 35;
}

/** What follow-redirects leaves on a request. */
interface LastRequest {
  res?: { responseUrl?: unknown };
  _currentUrl?: unknown;
}
