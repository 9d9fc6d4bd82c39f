import type { AxiosInstance } from 'axios';
import { resolvePluginOptions } from '../policy/options';
import { originOf } from '../policy/origin';
import { pathOf } from '../policy/scope';
import type { RetryPluginOptions } from '../types';
import type { CircuitBreakerView, PluginEventName, PluginEvents, RateLimiterView, RetryBudgetLike } from '../types';

import { installOn } from './install';
import { sharedParts } from './parts';

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
   * would retry each other's retries), and so does installing a plugin after its `close()`.
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
   * given), or `undefined` when budgets are off or that origin has not been called yet. An origin's
   * own budget is made whole on its first retry or on this read, holding the window's first attempts.
   */
  budget(url: string): RetryBudgetLike | undefined;
  /**
   * The opossum breaker with key `keyOrUrl` (a `breaker.key` result), or else the one guarding that
   * URL's calls (its route's own, when the route was found failing while its siblings succeed, else
   * its origin's), for its events (`open`, `halfOpen`, `close`, `failure`, `reject`, …) and `stats`;
   * `undefined` when breakers are off or it has not been used yet. A key that has only succeeded
   * has no opossum breaker until its first failure: this read makes it, closed, with its successes.
   */
  breaker(keyOrUrl: string): CircuitBreakerView | undefined;
  /**
   * A snapshot of the rate limiter with key `keyOrUrl` (a `rateLimit.key` result), or else of the one
   * a call to that URL would be paced by, found as the call finds it, for any method (its origin's
   * while the origin is limited, the spent quota's its route counts against, its route's or its
   * route's model's): its state (`'off'` or `'on'`), its `scope`, its rate per second, its queue and
   * its hold; `undefined` when `rateLimit` is `false` or none would pace that URL.
   */
  limiter(keyOrUrl: string): RateLimiterView | undefined;
  /**
   * Adds an observer of the plugin's calls, for instrumentation made after the plugin (such as
   * `instrumentMetrics` in `axios-resilience/otel`): `'retry'`, `'giveUp'`, `'settle'`,
   * `'circuitStateChange'` and `'rateLimit'`, with the events the hooks get plus the origin
   * concerned. A listener runs after the matching hook, cannot change the call, and what it throws
   * is dropped. Returns the function that removes it.
   */
  on<K extends PluginEventName>(event: K, listener: (event: PluginEvents[K]) => void): () => void;
}

/**
 * Makes a retry plugin. Options are validated here (a `TypeError` names a wrong one); the
 * per-request `config.retry` field is validated at the call.
 */
export function retryPlugin(options?: RetryPluginOptions): RetryPlugin {
  const resolved = resolvePluginOptions(options);
  const { shared, budgets } = sharedParts(resolved);
  const parts = { owner: {}, resolved, shared };
  const plugin: RetryPlugin = {
    install: (instance) => installOn(instance, parts),
    async close() {
      shared.closed = true;
      for (const end of [...shared.closers]) end();
      const shutdowns: Array<Promise<void>> = [];
      if (shared.limiters) shutdowns.push(shared.limiters.close());
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
      return shared.breakers?.find(keyOrUrl, originOf(keyOrUrl, undefined), pathOf({ url: keyOrUrl }));
    },
    on: (event, listener) => shared.listeners.on(event, listener),
    limiter(keyOrUrl) {
      return shared.limiters?.find(keyOrUrl, originOf(keyOrUrl, undefined), pathOf({ url: keyOrUrl }))?.view();
    },
  };
  return plugin;
}
