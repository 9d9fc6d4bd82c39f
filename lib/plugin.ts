import { AxiosHeaders, isCancel } from 'axios';
import type { AxiosInstance, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { runCall } from './adapter';
import type { Call, Shared } from './adapter';
import { BreakerRegistry } from './breaker';
import { CorsEvidence } from './cross-origin';
import { LatencyWindow } from './hedge';
import { RetryBudget } from './budget';
import { attachKey } from './idempotency';
import { resolvePluginOptions, resolveRequestOptions } from './options';
import type { ResolvedPluginOptions } from './options';
import { BoundedMap, originOf } from './origin';
import { cancellation } from './wait';
import type { CircuitBreakerView, RetryBudgetLike, RetryPluginOptions, RetryState } from './types';

/** What `retryPlugin()` returns. */
export interface RetryPlugin {
  /**
   * Registers the plugin's request and response interceptors on `instance` (axios itself or any
   * `axios.create()` instance). Returns the function that removes them again. Installing the same
   * plugin again on an instance is harmless (one retry loop, one hook call per event; its
   * interceptors go when the last returned eject is called); installing a different plugin on an
   * instance that has one throws a `TypeError` (two loops would retry each other's retries).
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
  budget(url: string): RetryBudgetLike | undefined;
  /**
   * The opossum breaker with key `keyOrUrl` (a `breaker.key` result), or else the one guarding that
   * URL's origin, for its events (`open`, `halfOpen`, `close`, `failure`, `reject`, …) and `stats`;
   * `undefined` when breakers are off or it has not been used yet.
   */
  breaker(keyOrUrl: string): CircuitBreakerView | undefined;
}

/**
 * The adapter the plugin puts on each call's config. It carries its call, so the response
 * interceptor can find the call's state, and a re-sent `error.config` is not wrapped twice.
 */
const CALL = Symbol('axios-resilience.call');
type CallAdapter = ((config: InternalAxiosRequestConfig) => Promise<AxiosResponse>) & { [CALL]: Call };

function callOf(config: InternalAxiosRequestConfig | undefined): Call | undefined {
  const adapter = config?.adapter;
  if (typeof adapter === 'function' && CALL in adapter) return (adapter as CallAdapter)[CALL];
  // axios-mock-adapter deletes `config.adapter` from the config it hands back; the call is also
  // kept on the config itself (a symbol: axios's mergeConfig does not copy it into a re-send).
  return (config as CallConfig | undefined)?.[CALL];
}

type CallConfig = InternalAxiosRequestConfig & { [CALL]?: Call };

/** Marks an instance's request interceptors with the plugin installed there (across package copies). */
const INSTALLED = Symbol.for('axios-resilience.installed');

interface Installation {
  owner: object;
  count: number;
  /** The owner was closed: its interceptors only pass calls through, and may make way. */
  closed(): boolean;
  remove(): void;
}

type MarkedManager = AxiosInstance['interceptors']['request'] & { [INSTALLED]?: Installation };

function sharedParts(resolved: ResolvedPluginOptions): {
  shared: Shared;
  budgets: BoundedMap<RetryBudget> | undefined;
} {
  const budgetSetting = resolved.budget;
  const perOrigin = budgetSetting !== false && 'perOrigin' in budgetSetting ? budgetSetting.perOrigin : undefined;
  const budgets = perOrigin === undefined ? undefined : new BoundedMap<RetryBudget>(perOrigin.maxOrigins);
  const breaker = resolved.breaker;
  const key = breaker === false ? undefined : breaker.key;
  const latencies = new BoundedMap<LatencyWindow>(1000);
  const shared: Shared = {
    budgetFor:
      budgetSetting === false
        ? () => undefined
        : 'shared' in budgetSetting
          ? () => budgetSetting.shared
          : (origin) => budgets!.getOrCreate(origin, () => new RetryBudget({ ...perOrigin, now: resolved.now })),
    breakers:
      breaker === false ? undefined : new BreakerRegistry(breaker, resolved.onCircuitStateChange, resolved.call.random),
    breakerKey:
      key === undefined
        ? (_config, origin) => origin
        : (config, origin) => {
            const chosen = key(config, origin);
            if (typeof chosen !== 'string' || chosen === '') {
              throw new TypeError(
                `axios-resilience: breaker.key() must return a non-empty string, got ${String(chosen)}`,
              );
            }
            return chosen;
          },
    closers: new Set(),
    closed: false,
    now: resolved.now,
    cors: new CorsEvidence(),
    latencyFor: (origin) => latencies.getOrCreate(origin, () => new LatencyWindow()),
  };
  return { shared, budgets };
}

/**
 * Makes a retry plugin. Options are validated here (a `TypeError` names a wrong one); the
 * per-request `config.retry` field is validated at the call.
 */
export function retryPlugin(options?: RetryPluginOptions): RetryPlugin {
  const resolved = resolvePluginOptions(options);
  const { shared, budgets } = sharedParts(resolved);
  const identity = {};

  const onRequest = (config: InternalAxiosRequestConfig): InternalAxiosRequestConfig => {
    if (shared.closed) return config;
    const callOptions = resolveRequestOptions(config.retry, resolved.call);
    if (callOptions === false) return config;

    // A config re-sent after a failure starts a new logical call over the caller's own adapter.
    const previous = callOf(config);
    const adapter = previous?.adapter ?? config.adapter;
    if (!(config.headers instanceof AxiosHeaders)) config.headers = AxiosHeaders.from(config.headers);

    const method = (config.method ?? 'get').toUpperCase();
    const state: RetryState = { attempts: 0, delaysMs: [] };
    // Re-sent after a success, it is a new operation: the key this plugin made last time is stale.
    // Re-sent after a failure, it is the same operation retried by hand: the key is kept.
    const stale = previous !== undefined && previous.state.stopReason === undefined ? previous.generatedKey : undefined;
    const key = attachKey(config.headers, method, callOptions, stale);
    if (key !== undefined) state.idempotencyKey = key.key;
    config.retryState = state;

    const call: Call = {
      options: callOptions,
      state,
      method,
      origin: originOf(config.url, config.baseURL),
      adapter,
      // The clock is read only for a deadline, the one rule that needs it.
      startedAt: callOptions.deadlineMs === undefined ? 0 : resolved.now(),
      generatedKey: key?.generated ? key.key : undefined,
      reported: false,
    };
    const callAdapter = ((attemptConfig: InternalAxiosRequestConfig) =>
      runCall(attemptConfig, call, shared)) as CallAdapter;
    callAdapter[CALL] = call;
    config.adapter = callAdapter;
    (config as CallConfig)[CALL] = call;
    // Cancelled already: axios throws before any adapter runs (a CancelToken's error carries no
    // config to find the call by), so the give-up is reported here.
    const cancelled = cancellation(config);
    if (cancelled !== undefined) giveUp(call, cancelled);
    return config;
  };

  // The outcome is reported here, after axios's transforms, so onGiveUp sees what the caller sees.
  const onResponseError = (error: unknown): never => {
    const call = callOf((error as { config?: InternalAxiosRequestConfig } | null)?.config);
    if (call !== undefined) giveUp(call, error);
    throw error;
  };

  const plugin: RetryPlugin = {
    install(instance) {
      const interceptors = (instance as Partial<AxiosInstance> | null | undefined)?.interceptors;
      if (!interceptors?.request?.use || !interceptors.response?.use) {
        throw new TypeError('axios-resilience: install() needs axios or an axios.create() instance');
      }
      const manager = interceptors.request as MarkedManager;
      let installation = manager[INSTALLED];
      if (installation !== undefined && installation.owner !== identity && installation.closed()) {
        installation.remove();
        installation = undefined;
      }
      if (installation !== undefined && installation.owner !== identity) {
        throw new TypeError(
          'axios-resilience: this axios instance already has a different retry plugin installed; ' +
            'eject or close it first (two would retry each other’s retries)',
        );
      }
      if (installation === undefined) {
        const requestId = interceptors.request.use(onRequest, undefined, { synchronous: true });
        const reporter = keepLast(interceptors.response, onResponseError);
        installation = {
          owner: identity,
          count: 0,
          closed: () => shared.closed,
          remove() {
            interceptors.request.eject(requestId);
            reporter.remove();
            delete manager[INSTALLED];
          },
        };
        Object.defineProperty(manager, INSTALLED, { value: installation, configurable: true, writable: true });
      }
      const current = installation;
      current.count += 1;
      let ejected = false;
      return () => {
        if (ejected) return;
        ejected = true;
        current.count -= 1;
        if (current.count === 0) current.remove();
      };
    },
    async close() {
      shared.closed = true;
      for (const end of [...shared.closers]) end();
      const shutdowns: Array<Promise<void>> = [];
      if (shared.breakers) shutdowns.push(shared.breakers.close());
      if (resolved.budget !== false && 'shared' in resolved.budget) shutdowns.push(resolved.budget.shared.flush());
      for (const budget of budgets?.values() ?? []) shutdowns.push(budget.flush());
      budgets?.clear();
      await Promise.all(shutdowns);
    },
    budget(url) {
      if (resolved.budget === false) return undefined;
      if ('shared' in resolved.budget) return resolved.budget.shared;
      return budgets?.get(originOf(url, undefined));
    },
    breaker(keyOrUrl) {
      return shared.breakers?.peek(keyOrUrl) ?? shared.breakers?.peek(originOf(keyOrUrl, undefined));
    },
  };
  return plugin;
}

type ResponseManager = AxiosInstance['interceptors']['response'];

/**
 * Registers the give-up reporter as the instance's last response interceptor, and keeps it last:
 * an interceptor added later (axios-auth-refresh's, which re-sends a 401 after a refresh) runs
 * before it, so a call such a library saves is never reported as given up. axios runs response
 * interceptors in registration order and has no priority, so the instance's `use` is wrapped
 * until eject.
 */
function keepLast(manager: ResponseManager, onRejected: (error: unknown) => never): { remove(): void } {
  const use = manager.use;
  let id = use.call(manager, undefined, onRejected);
  const wrapped: ResponseManager['use'] = function (this: ResponseManager, ...args) {
    const theirs = use.apply(manager, args);
    manager.eject(id);
    id = use.call(manager, undefined, onRejected);
    return theirs;
  };
  Object.defineProperty(manager, 'use', { value: wrapped, configurable: true, writable: true });
  return {
    remove() {
      manager.eject(id);
      // Back to the prototype's method, unless someone wrapped ours in turn.
      if (manager.use === wrapped) delete (manager as { use?: unknown }).use;
    },
  };
}

/**
 * Reports a failed call to `onGiveUp`, exactly once, with a stop reason even when the call never
 * reached the retry loop (cancelled before it was sent, or failed in a response transform). What
 * the hook throws is kept on `retryState.hookError`; the caller still gets the call's own error.
 */
function giveUp(call: Call, error: unknown): void {
  if (call.reported) return;
  call.reported = true;
  const state = call.state;
  state.stopReason ??= isCancel(error) ? 'aborted' : 'not-retryable';
  const onGiveUp = call.options.onGiveUp;
  if (onGiveUp === undefined) return;
  try {
    onGiveUp({ error, stopReason: state.stopReason, retryState: state });
  } catch (hookError) {
    state.hookError ??= hookError;
  }
}
