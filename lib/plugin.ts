import { AxiosHeaders } from 'axios';
import type { AxiosInstance, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { runCall } from './adapter';
import type { Call, Shared } from './adapter';
import { BreakerRegistry } from './breaker';
import type { CircuitBreakerView } from './breaker';
import { RetryBudget } from './budget';
import { attachKey } from './idempotency';
import { resolvePluginOptions, resolveRequestOptions } from './options';
import { BoundedMap, originOf } from './origin';
import type { RetryPluginOptions, RetryState } from './types';

/** What `retryPlugin()` returns. */
export interface RetryPlugin {
  /**
   * Registers the plugin's request and response interceptors on `instance` (axios itself or any
   * `axios.create()` instance). Returns the function that removes them again.
   */
  install(instance: AxiosInstance): () => void;
  /**
   * Shuts down every breaker and the shared timer, and ends pending retry waits (those calls
   * reject with their last error, stop reason `'aborted'`). Calls made afterwards pass through
   * untouched, as with `retry: false`.
   */
  close(): Promise<void>;
  /**
   * The retry budget calls to `url`'s origin draw from (the shared one when a `RetryBudget` was
   * given), or `undefined` when budgets are off or that origin has not been called yet.
   */
  budget(url: string): RetryBudget | undefined;
  /**
   * The opossum breaker guarding `url`'s origin, for its events (`open`, `halfOpen`, `close`,
   * `failure`, …) and `stats`; `undefined` when breakers are off or that origin has not been called.
   */
  breaker(url: string): CircuitBreakerView | undefined;
}

/**
 * The adapter the plugin puts on each call's config. It carries its call, so the response
 * interceptor can find the call's state, and a re-sent `error.config` is not wrapped twice.
 */
const CALL = Symbol('axios-resilience.call');
type CallAdapter = ((config: InternalAxiosRequestConfig) => Promise<AxiosResponse>) & { [CALL]: Call };

function callOf(config: InternalAxiosRequestConfig | undefined): Call | undefined {
  const adapter = config?.adapter;
  return typeof adapter === 'function' && CALL in adapter ? (adapter as CallAdapter)[CALL] : undefined;
}

/**
 * Makes a retry plugin. Options are validated here (a `TypeError` names a wrong one); the
 * per-request `config.retry` field is validated at the call.
 */
export function retryPlugin(options?: RetryPluginOptions): RetryPlugin {
  const resolved = resolvePluginOptions(options);
  const budgetSetting = resolved.budget;
  const budgets =
    budgetSetting === false || budgetSetting instanceof RetryBudget
      ? undefined
      : new BoundedMap<RetryBudget>(budgetSetting.maxOrigins);
  const shared: Shared = {
    budgetFor:
      budgetSetting === false
        ? () => undefined
        : budgetSetting instanceof RetryBudget
          ? () => budgetSetting
          : (origin) => budgets!.getOrCreate(origin, () => new RetryBudget({ ...budgetSetting, now: resolved.now })),
    breakers:
      resolved.breaker === false ? undefined : new BreakerRegistry(resolved.breaker, resolved.onCircuitStateChange),
    closers: new Set(),
    closed: false,
    now: resolved.now,
  };

  const onRequest = (config: InternalAxiosRequestConfig): InternalAxiosRequestConfig => {
    if (shared.closed) return config;
    const callOptions = resolveRequestOptions(config.retry, resolved.call);
    if (callOptions === false) return config;

    // A config re-sent after a failure starts a new logical call over the caller's own adapter.
    const adapter = callOf(config)?.adapter ?? config.adapter;
    if (!(config.headers instanceof AxiosHeaders)) config.headers = AxiosHeaders.from(config.headers);

    const method = (config.method ?? 'get').toUpperCase();
    const state: RetryState = { attempts: 0, delaysMs: [] };
    const key = attachKey(config.headers, method, callOptions);
    if (key !== undefined) state.idempotencyKey = key;
    config.retryState = state;

    const call: Call = {
      options: callOptions,
      state,
      method,
      origin: originOf(config.url, config.baseURL),
      adapter,
      startedAt: resolved.now(),
    };
    const callAdapter = ((attemptConfig: InternalAxiosRequestConfig) =>
      runCall(attemptConfig, call, shared)) as CallAdapter;
    callAdapter[CALL] = call;
    config.adapter = callAdapter;
    return config;
  };

  // The outcome is reported here, after axios's transforms, so onGiveUp sees what the caller sees.
  const onResponseError = (error: unknown): never => {
    const call = callOf((error as { config?: InternalAxiosRequestConfig } | null)?.config);
    const stopReason = call?.state.stopReason;
    if (call !== undefined && stopReason !== undefined && call.options.onGiveUp !== undefined) {
      call.options.onGiveUp({ error, stopReason, retryState: call.state });
    }
    throw error;
  };

  return {
    install(instance) {
      const interceptors = (instance as Partial<AxiosInstance> | null | undefined)?.interceptors;
      if (!interceptors?.request?.use || !interceptors.response?.use) {
        throw new TypeError('axios-resilience: install() needs axios or an axios.create() instance');
      }
      const requestId = interceptors.request.use(onRequest, undefined, { synchronous: true });
      const responseId = interceptors.response.use(undefined, onResponseError);
      let ejected = false;
      return () => {
        if (ejected) return;
        ejected = true;
        interceptors.request.eject(requestId);
        interceptors.response.eject(responseId);
      };
    },
    async close() {
      shared.closed = true;
      for (const end of [...shared.closers]) end();
      const shutdowns: Array<Promise<void>> = [];
      if (shared.breakers) shutdowns.push(shared.breakers.close());
      if (budgetSetting instanceof RetryBudget) shutdowns.push(budgetSetting.flush());
      for (const budget of budgets?.values() ?? []) shutdowns.push(budget.flush());
      budgets?.clear();
      await Promise.all(shutdowns);
    },
    budget(url) {
      const origin = originOf(url, undefined);
      if (budgetSetting === false) return undefined;
      if (budgetSetting instanceof RetryBudget) return budgetSetting;
      return budgets!.get(origin);
    },
    breaker(url) {
      return shared.breakers?.peek(originOf(url, undefined));
    },
  };
}
