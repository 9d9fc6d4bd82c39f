import { AxiosError, CanceledError, isCancel } from 'axios';
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import type { StopReason } from '../types';
import { CallState } from './call';
import type { Call } from './call';
import { notify } from './listeners';
import type { Listeners } from './listeners';
import { destination } from './route';
import { isError } from '../policy/classify';
import { reasonOutside } from './stop';
import { says } from './stop-reasons';
import type { Ending, Outcome } from './stop';

/**
 * The end of a call, in one place: the stop reason (named by `stop.ts`) on `retryState`, the error
 * the caller gets and its story (on the stack), the breaker's count, and (from the plugin's response interceptor,
 * after axios's transforms) `onGiveUp`.
 */

/**
 * Settles the call with its outcome: the stop reason goes on `retryState`, a token held for a retry
 * never sent goes back, a stream body still held is let go, a closed breaker counts the call, and the
 * story goes on the error's stack. What the adapter rejected with reaches the caller as it is, as
 * with plain axios; one with no config (a custom adapter's bare `Error` or plain value) cannot be
 * found by the response interceptor, so its `onGiveUp` is reported here.
 */
export function finish(run: Ending, outcome: Outcome): Promise<AxiosResponse> {
  run.token?.giveBack();
  run.body.release();
  if (outcome.stopReason !== undefined) run.state.stopReason = outcome.stopReason;
  const { listeners } = run.shared;
  if (listeners.heard.settle !== undefined) {
    const stopReason = 'response' in outcome ? undefined : outcome.stopReason;
    listeners.emit('settle', { origin: run.origin, stopReason, retryState: run.state });
  }
  if ('response' in outcome) {
    run.gate.succeeded(outcome.response);
    return Promise.resolve(outcome.response);
  }
  const thrown = ownError(outcome.error, run);
  run.gate.failed(thrown);
  if (outcome.stopReason === 'hook-failed') causedBy(thrown, run.state.hookError);
  tell(thrown, story(run, outcome.stopReason, outcome.error));
  const call = CallState.callOf(run.state);
  if (configOf(thrown) === undefined && call !== undefined) giveUp(run.state, call, thrown, listeners, run.config);
  return Promise.reject(thrown);
}

/**
 * The error the caller gets: the failure itself when it carries a config, or when it is what the
 * adapter rejected with (plain axios rejects with that very value, an `Error` or not); for a cancel
 * through a `CancelToken` in flight (whose reason is one error shared by every call of the token,
 * with no config) a `CanceledError` of the call's own, with the token's message and the reason as
 * `cause`; and a failure of the plugin's own making (a body factory's, `breaker.key()`'s) wrapped in
 * an `AxiosError` with the call's config and it as `cause`.
 */
function ownError(error: unknown, run: Ending): unknown {
  if (configOf(error) !== undefined) return error;
  if (isCancel(error)) {
    const own = new CanceledError((error as CanceledError<unknown>).message, run.config);
    Object.defineProperty(own, 'cause', { value: error, writable: true, enumerable: false, configurable: true });
    return own;
  }
  if (error === run.lastError) return error;
  return AxiosError.from(isError(error) ? error : new Error(String(error)), undefined, run.config);
}

function configOf(error: unknown): InternalAxiosRequestConfig | undefined {
  return (error as { config?: InternalAxiosRequestConfig } | null | undefined)?.config;
}

/**
 * A hook that threw ended the call, which fails with its last attempt's error: the hook's error is
 * that error's `cause` (retry-axios rejects with the hook's own error; this way both are reachable).
 * An error that has a cause of its own (a network error's socket error) keeps it; the hook's error
 * is on `retryState.hookError` and in the story either way.
 */
function causedBy(error: unknown, hookError: unknown): void {
  if (!isError(error) || error === hookError || error.cause !== undefined) return;
  Object.defineProperty(error, 'cause', { value: hookError, writable: true, enumerable: false, configurable: true });
}

/** The stack as it was before the plugin told its story on it (kept so a story is never told twice). */
const UNTOLD_STACK = Symbol('axios-resilience.stack');

/**
 * Puts what the plugin did on the first line of a failed call's stack, after the error's own words:
 * `AxiosError: Network Error (3 attempts over 1.3 s; stopped: retries-exhausted)`. That line is what
 * `console.error`, loggers' error serialisers and error trackers show first. The message stays
 * axios's, byte for byte: apps compare it (`error.message === 'Network Error'`). A value that is not
 * an `Error` (a plain object, a string) is left as it is.
 */
export function tell(error: unknown, told: string): void {
  if (!isError(error)) return;
  const holder = error as { name?: unknown; message?: unknown; stack?: unknown; [UNTOLD_STACK]?: string };
  try {
    const stack = holder[UNTOLD_STACK] ?? holder.stack;
    if (typeof stack !== 'string') return;
    const message = typeof holder.message === 'string' ? holder.message : '';
    holder.stack = storied(stack, String(holder.name), message, told);
    Object.defineProperty(holder, UNTOLD_STACK, { value: stack, configurable: true });
  } catch {
    // A frozen error keeps its stack.
  }
}

/** Whether the plugin told its story on `error` already. */
function isTold(error: unknown): boolean {
  return (error as { [UNTOLD_STACK]?: string } | null | undefined)?.[UNTOLD_STACK] !== undefined;
}

/**
 * `stack` with the story after its header (`Name: message`, as V8 writes it), or, for an engine whose
 * stack has no header (Firefox, Safari), a first line of its own saying the same.
 */
function storied(stack: string, name: string, message: string, told: string): string {
  const header = message === '' ? name : `${name}: ${message}`;
  if (stack.startsWith(header)) return `${header} (${told})${stack.slice(header.length)}`;
  // A header written before the error's name was set (`AxiosError: …` of a `CanceledError`).
  const lineEnd = stack.indexOf('\n');
  const at = message === '' ? -1 : stack.indexOf(`: ${message}`);
  if (at !== -1 && (lineEnd === -1 || at < lineEnd)) {
    const end = at + 2 + message.length;
    return `${stack.slice(0, end)} (${told})${stack.slice(end)}`;
  }
  return `${header} (${told})\n${stack}`;
}

/** What the plugin did, in words: attempts, time, and why it stopped (with what to do, where the reason needs it). */
export function story(run: Ending, reason: StopReason, error: unknown): string {
  const { attempts } = run.state;
  const sent = attempts === 0 ? 'nothing sent' : `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  const over = attempts === 0 ? '' : ` over ${duration(run.shared.now() - run.startedAt)}`;
  return `${sent}${over}; stopped: ${reason}${says(run, reason, error)}`;
}

/** A span of time as a person reads it: `840 ms`, `1.3 s`, `2 min 5 s`. */
function duration(ms: number): string {
  if (ms < 999.5) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * Reports a failed call to `onGiveUp`, exactly once, with a stop reason even when the call never
 * reached the attempt loop (cancelled before it was sent, or failed in a response transform). What
 * the hook throws is kept on `retryState.hookError`; the caller still gets the call's own error.
 * `config` is the call's, where the error may not carry it (a `CancelToken`'s reason).
 */
export function giveUp(
  state: CallState,
  call: Call,
  error: unknown,
  listeners: Listeners,
  config = (error as { config?: InternalAxiosRequestConfig } | null)?.config,
): void {
  if (call.reported) return;
  call.reported = true;
  state.stopReason ??= reasonOutside(error);
  // Cancelled before the adapter ran: no story was told yet, and an error of the call's own may have one
  // (never a CancelToken's reason, which carries no config: every call of that token shares it).
  if (state.attempts === 0 && configOf(error) === config && config !== undefined && !isTold(error)) {
    tell(error, `nothing sent; stopped: ${state.stopReason}`);
  }
  const event = { error, stopReason: state.stopReason, retryState: state };
  notify(call.options.onGiveUp, event, (hookError) => (state.hookError ??= hookError));
  if (listeners.heard.giveUp !== undefined) {
    listeners.emit('giveUp', { ...event, origin: config === undefined ? 'relative:' : destination(config) });
  }
}
