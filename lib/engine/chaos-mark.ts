import type { AxiosAdapter } from 'axios';
import type { ChaosInjection } from '../types';

/**
 * How chaos marks what it touched: an injected outcome carries `injected` (which fault, which
 * phase), so a process can tell it from a real failure; the adapter it wraps a call's adapter in
 * knows the adapter inside (the body rules ask which adapter really sends).
 */

const INNER = Symbol('axios-resilience.chaos-inner');

/** Marks an injected error (or a response an injected status resolved with) and returns it. */
export function markInjected<T extends object>(target: T, injection: ChaosInjection): T {
  (target as T & { injected: ChaosInjection }).injected = injection;
  return target;
}

/** Whether an attempt's failure (or response) was injected. */
export function isInjected(outcome: unknown): boolean {
  return typeof (outcome as { injected?: unknown } | null | undefined)?.injected === 'object';
}

/** Marks `wrapper` as chaos's wrapping of `inner`. */
export function wrapsAdapter(wrapper: AxiosAdapter, inner: AxiosAdapter): AxiosAdapter {
  (wrapper as AxiosAdapter & { [INNER]: AxiosAdapter })[INNER] = inner;
  return wrapper;
}

/** The adapter that really sends: `base` itself, or the one chaos wrapped. */
export function innerAdapter(base: AxiosAdapter): AxiosAdapter {
  return (base as AxiosAdapter & { [INNER]?: AxiosAdapter })[INNER] ?? base;
}
