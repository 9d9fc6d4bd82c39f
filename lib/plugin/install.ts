import type { AxiosAdapter, AxiosInstance, InternalAxiosRequestConfig } from 'axios';
import { beginCall, CallState } from '../engine/call';
import type { Call } from '../engine/call';
import { cancellation } from '../engine/hooks';
import { giveUp } from '../engine/outcome';
import { resolveRequestOptions } from '../policy/options';
import { installClosed, installedTwice, notAxios } from '../policy/misuse';
import { adapterOver, wrappingOf } from './adapter';
import type { AdapterValue, Plugin } from './adapter';

/**
 * Installing one plugin on one axios instance: a request interceptor that begins each call, the
 * plugin's adapter as the instance's default adapter (around the one it had), and a response
 * interceptor that reports `onGiveUp`; and taking all three away again.
 */

/** Marks an instance's request interceptors with the plugin installed there (across package copies). */
const INSTALLED = Symbol.for('axios-resilience.installed');

interface Installation {
  owner: object;
  count: number;
  /** The owner was closed: its interceptors only pass calls through, and may make way. */
  closed(): boolean;
  remove(): void;
}

type RequestManager = AxiosInstance['interceptors']['request'] & { [INSTALLED]?: Installation };
type ResponseManager = AxiosInstance['interceptors']['response'];

/**
 * `plugin.install(instance)`: installs the plugin once per instance, and returns its eject.
 * Installing the same plugin again is harmless (it goes with the last eject); a different plugin on
 * the same instance is a `TypeError`, unless that one was closed (it then makes way). Installing a
 * plugin after its `close()` is a `TypeError` too: it would do nothing, silently.
 */
export function installOn(instance: AxiosInstance, plugin: Plugin): () => void {
  const candidate = instance as Partial<AxiosInstance> | null | undefined;
  const interceptors = candidate?.interceptors;
  if (!interceptors?.request?.use || !interceptors.response?.use || typeof candidate?.defaults !== 'object') {
    notAxios(instance);
  }
  if (plugin.shared.closed) installClosed();
  let installation = (interceptors.request as RequestManager)[INSTALLED];
  if (installation !== undefined && installation.owner !== plugin.owner && installation.closed()) {
    installation.remove();
    installation = undefined;
  }
  if (installation !== undefined && installation.owner !== plugin.owner) installedTwice();
  const current = installation ?? install(instance, plugin);
  current.count += 1;
  let ejected = false;
  return () => {
    if (ejected) return;
    ejected = true;
    current.count -= 1;
    if (current.count === 0) current.remove();
  };
}

/**
 * Installs `plugin` on `instance`. The plugin's adapter becomes the instance's default adapter, so
 * an ordinary call needs nothing more per call than its request interceptor beginning the call; a
 * per-request adapter (or one put in the defaults later, like axios-mock-adapter's) is wrapped by
 * that interceptor.
 */
function install(instance: AxiosInstance, plugin: Plugin): Installation {
  const { owner, resolved, shared } = plugin;
  const { defaults, interceptors } = instance;
  const manager = interceptors.request as RequestManager;
  // A default another plugin's adapter holds (an instance made from an installed one's defaults)
  // is unwrapped: one retry loop, not two.
  const base = wrappingOf(defaults.adapter)?.value ?? defaults.adapter;
  const adapter = adapterOver(base, plugin);
  defaults.adapter = adapter;

  const onRequest = (config: InternalAxiosRequestConfig): InternalAxiosRequestConfig => {
    if (shared.closed) return config;
    const field = config.retry;
    const callOptions = field === undefined ? resolved.call : resolveRequestOptions(field, resolved.call);
    if (callOptions === false) return config;
    const state = beginCall(owner, callOptions, field, config.retryState);
    config.retryState = state;
    if (config.adapter !== adapter) {
      const wrapping = wrappingOf(config.adapter);
      // Ours already: a re-sent config this interceptor routed before.
      if (wrapping?.owner !== owner) config.adapter = adapterOver(wrapping?.value ?? config.adapter, plugin);
    }
    // Cancelled already: axios throws before any adapter runs (and a CancelToken's error carries
    // no config to find the call by), so the give-up is reported here.
    if (config.signal !== undefined || config.cancelToken !== undefined) {
      const call = CallState.callOf(state)!;
      const cancelled = cancellation(config);
      if (cancelled !== undefined) giveUp(state, call, cancelled, shared.listeners, config);
      else if (config.cancelToken) watchToken(config, state, call);
    }
    return config;
  };

  /**
   * A token cancelled after this interceptor but before axios reached the adapter (another
   * interceptor was still running) fails the call with the token's reason, which carries no config:
   * the call is given up here when the token fires, unless the adapter took the call first (then the
   * engine ends it) or another adapter did (a cache answered it: it did not fail).
   */
  const watchToken = (config: InternalAxiosRequestConfig, state: CallState, call: Call): void => {
    const token = config.cancelToken!;
    const onCancel = (reason: unknown): void => {
      call.unwatch = undefined;
      const elsewhere = config.adapter !== adapter && wrappingOf(config.adapter)?.owner !== owner;
      if (!call.started && !elsewhere) giveUp(state, call, reason, shared.listeners, config);
    };
    token.subscribe(onCancel);
    call.unwatch = () => token.unsubscribe(onCancel);
  };

  // The outcome is reported here, after axios's transforms, so onGiveUp sees what the caller sees.
  const onResponseError = (error: unknown): never => {
    const state = (error as { config?: InternalAxiosRequestConfig } | null)?.config?.retryState;
    const call = CallState.callOf(state);
    if (call !== undefined && call.owner === owner) giveUp(state as CallState, call, error, shared.listeners);
    throw error;
  };

  const requestUse = interceptors.request.use.bind(interceptors.request);
  const responseUse = interceptors.response.use.bind(interceptors.response);
  const starter = keepRegisteredLast(manager, () => requestUse(onRequest, undefined, { synchronous: true }));
  const reporter = keepRegisteredLast(interceptors.response, () => responseUse(undefined, onResponseError));
  const children = withoutPlugin(instance, adapter, base);
  const installation: Installation = {
    owner,
    count: 0,
    closed: () => shared.closed,
    remove() {
      starter.remove();
      reporter.remove();
      children.remove();
      if (defaults.adapter === adapter) setDefaultAdapter(defaults, base);
      delete manager[INSTALLED];
    },
  };
  Object.defineProperty(manager, INSTALLED, { value: installation, configurable: true, writable: true });
  return installation;
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

/**
 * Registers one of the plugin's interceptors, and keeps it the last one registered on `manager`:
 * axios runs request interceptors in the reverse of the order they were added and response
 * interceptors in that order, and has no priority, so the instance's `use` is wrapped until
 * eject. The request interceptor so runs first, whatever was installed after the plugin (a cache
 * that answers a hit finds the call begun, and takes it out of the plugin's hands, as in the other
 * install order); the give-up reporter runs last (a call that axios-auth-refresh's interceptor
 * saves is never reported as given up).
 */
function keepRegisteredLast<M extends RequestManager | ResponseManager>(
  manager: M,
  register: () => number,
): { remove(): void } {
  const use = manager.use as (...args: unknown[]) => number;
  let id = register();
  const wrapped = function (this: M, ...args: unknown[]): number {
    const theirs = use.apply(manager, args);
    manager.eject(id);
    id = register();
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
