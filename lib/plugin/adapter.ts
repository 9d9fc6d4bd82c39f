import axios, { getAdapter } from 'axios';
import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { needsPreparing } from '../engine/body';
import { CallState, type Call } from '../engine/call';
import { CallRun } from '../engine/call-run';
import { withChaos } from '../engine/chaos';
import type { Shared } from '../engine/context';
import { loop, runAttempts } from '../engine/loop';
import { activeLimiter, noteSuccess } from '../engine/rate-gate';
import { answeredBy, guardAt } from '../engine/redirects';
import { attachKey, keysCall } from '../policy/idempotency';
import { resolveRequestOptions } from '../policy/options';
import { originOf } from '../policy/origin';
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

/**
 * Runs one logical call (the engine's entry) over `base`, the caller's adapter. Request and response
 * transforms and interceptors are outside it, so they run once per call and every attempt sends
 * the same bytes.
 *
 * The call is made here, complete (`CallRun`): its origin, its budget and breaker, its adapter (with
 * fault injection, when the call has `chaos`), and its Idempotency-Key, attached once per logical
 * call, after every request interceptor. A key from a user's generator that is no valid header
 * value, or a `breaker.key()` that throws, fails the call with that error, before anything is sent.
 *
 * Most calls need nothing but a send — no hook, hedge, deadline, predicate, attempt header, body
 * factory, FormData or stream body, and a closed breaker or none: for them the attempt chain's last
 * link alone (`CallRun.dispatch`), one `then` on its promise, and the attempt loop takes the call
 * only if the attempt fails.
 */
function runCall(
  config: InternalAxiosRequestConfig,
  call: Call,
  state: CallState,
  base: AxiosAdapter,
  shared: Shared,
): Promise<AxiosResponse> {
  const options = call.options;
  const lower = config.method ?? 'get';
  const method = UPPER.get(lower) ?? lower.toUpperCase();
  const origin = originOf(config.url, config.baseURL);
  let run: CallRun;
  try {
    // A call the plugin does not key (a GET) is looked at for a key of the caller's only if it fails.
    const key = keysCall(method, options, call.staleKey)
      ? attachKey(config.headers, method, options, call.staleKey)
      : undefined;
    if (key !== undefined) {
      // The plugin's own key on a config re-sent after a failure is still the plugin's; a key of the
      // caller's is deduped by its server, one of the plugin's where the server is declared to.
      const generated = key.generated || key.key === call.ownKey;
      state.idempotencyKey = key.key;
      if (generated) call.generatedKey = key.key;
      call.deduped = !generated || (options.idempotencyKey !== false && options.idempotencyKey.serverDedupes(origin));
    }
    const sender =
      options.chaos === false ? base : withChaos(base, options.chaos, state, shared, options.attemptHeader);
    run = new CallRun(config, call, state, sender, shared, method, origin);
  } catch (error) {
    return Promise.reject(error);
  }
  const { route } = run;
  if (
    !options.plain ||
    // Nothing paced anywhere: one field check. A paced scope's calls wait their turn in the loop.
    (shared.limiters !== undefined && shared.limiters.engaged !== 0 && activeLimiter(run) !== undefined) ||
    route.corsSensitive ||
    needsPreparing(config.data, options.retries) ||
    !(route.guard?.closed ?? true)
  ) {
    return runAttempts(run.retrying(false));
  }
  const { guard } = route;
  return run.dispatch(config).then(
    (response) => {
      noteSuccess(run, response);
      if (guard === undefined) return response;
      // Answered by the origin a redirect ended at: its breaker counts the success.
      const answeredAt = answeredBy({ response }, route.origin);
      const counter = answeredAt === undefined ? guard : guardAt(run, answeredAt);
      counter?.succeeded(response, run.endpoint);
      return response;
    },
    // Begun under a closed breaker (or none), the call is counted there already: the loop takes it on.
    (error: unknown) => loop(run.retrying(guard !== undefined), { error }),
  );
}

/** axios lower-cases the method; the decision table and the key settings speak upper case. */
const UPPER = new Map(['get', 'post', 'put', 'patch', 'delete', 'head', 'options'].map((m) => [m, m.toUpperCase()]));
