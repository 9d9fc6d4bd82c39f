import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import type { BreakerRegistry } from '../guards/breaker';
import type { CorsEvidence } from '../guards/cors';
import type { RateLimiters } from '../guards/rate-limiters';
import { attachKey, keysCall } from '../policy/idempotency';
import type { ResolvedOptions } from '../policy/options';
import type { RetryBudgetLike } from '../types';
import type { Call, CallState } from './call';
import type { LatencyWindow } from '../guards/latency';
import type { Listeners } from './listeners';
import { destination, routeTo } from './route';
import type { Route } from './route';

/** What the calls of one plugin share (made once by `retryPlugin()`). */
export interface Shared {
  budgetFor(origin: string): RetryBudgetLike | undefined;
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
  /** Recent attempt latencies per origin, for adaptive hedge delays (made on first use). */
  latencyFor(origin: string): LatencyWindow;
  /** The rate limiters of throttled origins; `undefined` with `rateLimit: false`. */
  limiters: RateLimiters | undefined;
  /** Observers added with `plugin.on()`. */
  listeners: Listeners;
}

/** What a call's attempts work with, fixed when the call reaches the adapter. */
export interface CallContext {
  readonly config: InternalAxiosRequestConfig;
  readonly call: Call;
  readonly state: CallState;
  /** The caller's adapter. */
  readonly base: AxiosAdapter;
  readonly shared: Shared;
  readonly options: ResolvedOptions;
  /** Upper-case method. */
  readonly method: string;
  /** Where the first attempt goes, and its budget and breaker there. */
  readonly route: Route;
  /** When the call began (the plugin's clock), or 0 for a call without a deadline: no other rule reads it. */
  readonly startedAt: number;
}

/** axios lower-cases the method; the decision table and the key settings speak upper case. */
const UPPER = new Map(['get', 'post', 'put', 'patch', 'delete', 'head', 'options'].map((m) => [m, m.toUpperCase()]));

function methodOf(config: InternalAxiosRequestConfig): string {
  const method = config.method ?? 'get';
  return UPPER.get(method) ?? method.toUpperCase();
}

/** Whether `origin`'s server is declared to dedupe the keys the plugin generates. */
function dedupedAt(options: ResolvedOptions, origin: string): boolean {
  return options.idempotencyKey !== false && options.idempotencyKey.serverDedupes(origin);
}

/**
 * Fixes what a call works with when it reaches the adapter: its origin, its budget and breaker,
 * and its Idempotency-Key, attached here, once per logical call, after every request interceptor.
 * Throws for a key from a user's generator that is no valid header value, or a `breaker.key()` that
 * throws.
 */
export function contextOf(
  config: InternalAxiosRequestConfig,
  call: Call,
  state: CallState,
  base: AxiosAdapter,
  shared: Shared,
): CallContext {
  const options = call.options;
  const method = methodOf(config);
  const origin = destination(config);
  // A call the plugin does not key (a GET) is looked at for a key of the caller's only if it fails.
  if (keysCall(method, options, call.staleKey)) {
    const key = attachKey(config.headers, method, options, call.staleKey);
    if (key !== undefined) {
      state.idempotencyKey = key.key;
      if (key.generated) call.generatedKey = key.key;
      call.deduped = !key.generated || dedupedAt(options, origin);
    }
  }
  // One object literal: it is made whole, where a class instance would be built field by field.
  return {
    config,
    call,
    state,
    base,
    shared,
    options,
    method,
    route: routeTo(origin, config, shared, state, options),
    startedAt: options.deadlineMs === undefined ? 0 : shared.now(),
  };
}

/** Sends one attempt over the caller's adapter; a custom adapter may hand back a thenable. */
export function dispatch(base: AxiosAdapter, config: InternalAxiosRequestConfig): Promise<AxiosResponse> {
  return Promise.resolve(base(config));
}
