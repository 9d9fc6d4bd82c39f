import axios, { getAdapter } from 'axios';
import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { CallState } from '../engine/call';
import type { Shared } from '../engine/context';
import { runCall } from '../engine/run';
import { resolveRequestOptions } from '../policy/options';
import type { ResolvedPluginOptions } from '../policy/options';

/** What the interceptors and the adapter of one plugin need. */
export interface Plugin {
  owner: object;
  resolved: ResolvedPluginOptions;
  shared: Shared;
}

/** What `config.adapter` may hold: a name, a list of names, a function, or nothing (axios's defaults). */
export type AdapterValue = InternalAxiosRequestConfig['adapter'];

/**
 * Marks the plugin's adapters with what they wrap and whose they are, across copies of the package
 * (an ES module and a CommonJS copy side by side), so one plugin's adapter is never wrapped in
 * another's: two loops would retry each other's retries.
 */
const WRAPS = Symbol.for('axios-resilience.wraps');

export interface Wrapping {
  value: AdapterValue;
  owner: object;
}

export type PluginAdapter = AxiosAdapter & { [WRAPS]: Wrapping };

export function wrappingOf(adapter: AdapterValue): Wrapping | undefined {
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

/**
 * An adapter that runs the calls `owner`'s request interceptor began, over `value` (the caller's
 * own adapter), and passes anything else straight to it: a call with `retry: false`, a config
 * copied onto an instance without the plugin, a call begun before `close()`.
 */
export function adapterOver(value: AdapterValue, plugin: Plugin): PluginAdapter {
  const { owner, shared } = plugin;
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
    call.unwatch?.();
    // An interceptor that ran after the plugin's may have set `config.retry`: what the adapter sees counts.
    if (config.retry !== call.retry) {
      let options: ReturnType<typeof resolveRequestOptions>;
      try {
        options = resolveRequestOptions(config.retry, plugin.resolved.call);
      } catch (error) {
        return Promise.reject(error);
      }
      if (options === false) {
        delete config.retryState;
        return base(config);
      }
      call.options = options;
      call.retry = config.retry;
    }
    return runCall(config, call, state as CallState, base, shared);
  }) as PluginAdapter;
  adapter[WRAPS] = { value, owner };
  return adapter;
}
