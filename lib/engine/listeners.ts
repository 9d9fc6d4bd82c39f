import type { PluginEventName, PluginEvents } from '../types';

/**
 * The plugin's events for observers attached after it was made (`plugin.on()`), such as
 * `instrumentMetrics`: the hooks' events, each with the origin it concerns. Unlike a hook, a
 * listener cannot change a call: it runs after the hook, and what it throws is dropped.
 */

export type PluginListener<K extends PluginEventName> = (event: PluginEvents[K]) => void;

/**
 * Calls an observing hook (`onGiveUp`, `onHedge`, `onCircuitStateChange`, `onRateLimit`): what it
 * throws, or a promise it returns rejects with, goes to `failed` (or nowhere), never into the call
 * it watched, nor out as an unhandled rejection.
 */
export function notify<E>(
  hook: ((event: E) => unknown) | undefined,
  event: E,
  failed?: (error: unknown) => void,
): void {
  if (hook === undefined) return;
  try {
    const result = hook(event);
    if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') {
      (result as PromiseLike<unknown>).then(undefined, (error: unknown) => failed?.(error));
    }
  } catch (error) {
    failed?.(error);
  }
}

/** The listeners of one plugin, by event. */
export class Listeners {
  /** Each event's listeners, while it has any: a call checks one field, and builds no event nobody reads. */
  readonly heard: { [K in PluginEventName]?: Set<PluginListener<K>> } = {};

  /** Adds `listener`; the function returned removes it (once; calling it again does nothing). */
  on<K extends PluginEventName>(name: K, listener: PluginListener<K>): () => void {
    const heard = this.heard as Record<K, Set<PluginListener<K>> | undefined>;
    const set = (heard[name] ??= new Set());
    // A wrapper, so the same function added twice is two listeners with two disposers.
    const wrapper: PluginListener<K> = (event) => listener(event);
    set.add(wrapper);
    return () => {
      set.delete(wrapper);
      if (set.size === 0 && heard[name] === set) delete heard[name];
    };
  }

  emit<K extends PluginEventName>(name: K, event: PluginEvents[K]): void {
    const set = this.heard[name] as Set<PluginListener<K>> | undefined;
    if (set === undefined) return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch {
        // An observer's throw must not change the call it watched.
      }
    }
  }
}
