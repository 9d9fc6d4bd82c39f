import axios, { getAdapter, isCancel } from 'axios';
import type { AxiosAdapter, AxiosInstance, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { runCall } from '../engine/adapter';
import type { Shared } from '../engine/adapter';
import { BreakerRegistry } from '../guards/breaker';
import { beginCall, CallState } from '../engine/call';
import type { Call } from '../engine/call';
import { CorsEvidence } from '../guards/cors';
import { LatencyWindow } from '../engine/hedge';
import { RetryBudget } from '../guards/budget';
import { resolvePluginOptions, resolveRequestOptions } from '../policy/options';
import type { ResolvedPluginOptions } from '../policy/options';
import { BoundedMap, originOf } from '../policy/origin';
import { cancellation } from '../engine/wait';
import type { CircuitBreakerView, RetryBudgetLike, RetryPluginOptions } from '../types';

/** What `retryPlugin()` returns. */
export interface RetryPlugin {
  /**
   * Installs the plugin on `instance` (axios itself or any `axios.create()` instance): a request
   * interceptor that begins each call, the plugin's adapter as the instance's default adapter
   * (wrapped around the one it had; a per-request adapter is wrapped per call), and a response
   * interceptor that reports `onGiveUp`. Returns the function that removes all three again.
   * Instances later made from this one with `create()` start without the plugin, as they start
   * without its interceptors. Installing the same plugin again on an instance is harmless (one
   * retry loop, one hook call per event; it goes when the last returned eject is called);
   * installing a different plugin on an instance that has one throws a `TypeError` (two loops
   * would retry each other's retries).
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

/** What `config.adapter` may hold: a name, a list of names, a function, or nothing (axios's defaults). */
type AdapterValue = InternalAxiosRequestConfig['adapter'];

/**
 * Marks the plugin's adapters with what they wrap and whose they are, across copies of the package
 * (an ES module and a CommonJS copy side by side), so one plugin's adapter is never wrapped in
 * another's: two loops would retry each other's retries.
 */
const WRAPS = Symbol.for('axios-resilience.wraps');
interface Wrapping {
  value: AdapterValue;
  owner: object;
}
type PluginAdapter = AxiosAdapter & { [WRAPS]: Wrapping };

function wrappingOf(adapter: AdapterValue): Wrapping | undefined {
  return typeof adapter === 'function' ? (adapter as Partial<PluginAdapter>)[WRAPS] : undefined;
}

/**
 * The adapter `value` resolves to, where that does not depend on the request. axios's `getAdapter`
 * reads the config only for its fetch adapter (the `env` it runs in), so a list that resolves
 * before reaching `'fetch'` — axios's default list does, to `http` in Node and `xhr` in a browser
 * — is resolved once instead of on every call.
 */
function fixedAdapter(value: AdapterValue): AxiosAdapter | undefined {
  const source = value ?? axios.defaults.adapter;
  for (const item of Array.isArray(source) ? source : [source]) {
    if (typeof item === 'function') return item as AxiosAdapter;
    if (typeof item !== 'string') continue;
    if (item.toLowerCase() === 'fetch') return undefined;
    try {
      return getAdapter(item);
    } catch {
      // Not available here (xhr in Node, http in a browser): the next one in the list.
    }
  }
  return undefined;
}

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
  const makeBudget = (): RetryBudget => new RetryBudget({ ...perOrigin, now: resolved.now });
  const latencies = new BoundedMap<LatencyWindow>(1000);
  const makeLatencies = (): LatencyWindow => new LatencyWindow();
  const shared: Shared = {
    budgetFor:
      budgetSetting === false
        ? () => undefined
        : 'shared' in budgetSetting
          ? () => budgetSetting.shared
          : (origin) => budgets!.getOrCreate(origin, makeBudget),
    breakers:
      breaker === false ? undefined : new BreakerRegistry(breaker, resolved.onCircuitStateChange, resolved.call.random),
    breakerKey:
      key === undefined
        ? undefined
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
    latencyFor: (origin) => latencies.getOrCreate(origin, makeLatencies),
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
  const owner = {};

  /**
   * An adapter that runs the calls this plugin's request interceptor began, over `value` (the
   * caller's own adapter), and passes anything else straight to it: a call with `retry: false`, a
   * config copied onto an instance without the plugin, a call begun before `close()`.
   */
  const adapterOver = (value: AdapterValue): PluginAdapter => {
    const fixed = fixedAdapter(value);
    const adapter = ((config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
      let base: AxiosAdapter;
      try {
        base = fixed ?? getAdapter(value ?? axios.defaults.adapter, config);
      } catch (error) {
        // An unknown adapter name.
        return Promise.reject(error);
      }
      const state = config.retryState;
      const call = CallState.callOf(state);
      if (call === undefined || call.owner !== owner || call.started || shared.closed) return base(config);
      call.started = true;
      return runCall(config, call, state as CallState, base, shared);
    }) as PluginAdapter;
    adapter[WRAPS] = { value, owner };
    return adapter;
  };

  /**
   * Installs on one instance. The plugin's adapter becomes the instance's default adapter, so an
   * ordinary call needs nothing more per call than its request interceptor beginning the call; a
   * per-request adapter (or one put in the defaults later, like axios-mock-adapter's) is wrapped by
   * that interceptor.
   */
  const setUp = (instance: AxiosInstance, manager: MarkedManager): Installation => {
    const { defaults, interceptors } = instance;
    // A default another plugin's adapter holds (an instance made from an installed one's defaults)
    // is unwrapped: one retry loop, not two.
    const base = wrappingOf(defaults.adapter)?.value ?? defaults.adapter;
    const adapter = adapterOver(base);
    defaults.adapter = adapter;

    const onRequest = (config: InternalAxiosRequestConfig): InternalAxiosRequestConfig => {
      if (shared.closed) return config;
      const field = config.retry;
      const callOptions = field === undefined ? resolved.call : resolveRequestOptions(field, resolved.call);
      if (callOptions === false) return config;
      const state = beginCall(owner, callOptions, config.retryState);
      config.retryState = state;
      if (config.adapter !== adapter) {
        const wrapping = wrappingOf(config.adapter);
        // Ours already: a re-sent config this interceptor routed before.
        if (wrapping?.owner !== owner) config.adapter = adapterOver(wrapping?.value ?? config.adapter);
      }
      // Cancelled already: axios throws before any adapter runs (and a CancelToken's error carries
      // no config to find the call by), so the give-up is reported here.
      if (config.signal !== undefined || config.cancelToken !== undefined) {
        const cancelled = cancellation(config);
        if (cancelled !== undefined) giveUp(state, CallState.callOf(state)!, cancelled);
      }
      return config;
    };

    const requestId = interceptors.request.use(onRequest, undefined, { synchronous: true });
    const reporter = keepLast(interceptors.response, onResponseError);
    const children = withoutPlugin(instance, adapter, base);
    return {
      owner,
      count: 0,
      closed: () => shared.closed,
      remove() {
        interceptors.request.eject(requestId);
        reporter.remove();
        children.remove();
        if (defaults.adapter === adapter) setDefaultAdapter(defaults, base);
        delete manager[INSTALLED];
      },
    };
  };

  // The outcome is reported here, after axios's transforms, so onGiveUp sees what the caller sees.
  const onResponseError = (error: unknown): never => {
    const state = (error as { config?: InternalAxiosRequestConfig } | null)?.config?.retryState;
    const call = CallState.callOf(state);
    if (call !== undefined && call.owner === owner) giveUp(state as CallState, call, error);
    throw error;
  };

  const plugin: RetryPlugin = {
    install(instance) {
      const candidate = instance as Partial<AxiosInstance> | null | undefined;
      const interceptors = candidate?.interceptors;
      if (!interceptors?.request?.use || !interceptors.response?.use || typeof candidate?.defaults !== 'object') {
        throw new TypeError('axios-resilience: install() needs axios or an axios.create() instance');
      }
      const manager = interceptors.request as MarkedManager;
      let installation = manager[INSTALLED];
      if (installation !== undefined && installation.owner !== owner && installation.closed()) {
        installation.remove();
        installation = undefined;
      }
      if (installation !== undefined && installation.owner !== owner) {
        throw new TypeError(
          'axios-resilience: this axios instance already has a different retry plugin installed; ' +
            'eject or close it first (two would retry each other’s retries)',
        );
      }
      if (installation === undefined) {
        installation = setUp(instance, manager);
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

function setDefaultAdapter(defaults: AxiosInstance['defaults'], value: AdapterValue): void {
  if (value === undefined) delete defaults.adapter;
  else defaults.adapter = value;
}

/**
 * An instance made by `instance.create()` copies its defaults, the plugin's adapter included, but
 * not its interceptors. Interceptors are what a plugin is installed as, so such a child starts
 * without the plugin: its default adapter is set back to the one the plugin wraps.
 */
function withoutPlugin(instance: AxiosInstance, adapter: AxiosAdapter, base: AdapterValue): { remove(): void } {
  const create = (instance as Partial<AxiosInstance>).create;
  if (typeof create !== 'function') return { remove: () => undefined };
  const wrapped: AxiosInstance['create'] = function (this: unknown, ...args) {
    const child = create.apply(this, args);
    if (child?.defaults?.adapter === adapter) setDefaultAdapter(child.defaults, base);
    return child;
  };
  Object.defineProperty(instance, 'create', { value: wrapped, configurable: true, writable: true });
  return {
    remove() {
      if (instance.create === wrapped)
        Object.defineProperty(instance, 'create', { value: create, configurable: true, writable: true });
    },
  };
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
function giveUp(state: CallState, call: Call, error: unknown): void {
  if (call.reported) return;
  call.reported = true;
  state.stopReason ??= isCancel(error) ? 'aborted' : 'not-retryable';
  const onGiveUp = call.options.onGiveUp;
  if (onGiveUp === undefined) return;
  try {
    onGiveUp({ error, stopReason: state.stopReason, retryState: state });
  } catch (hookError) {
    state.hookError ??= hookError;
  }
}
