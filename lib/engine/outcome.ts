import { AxiosError, CanceledError, isCancel } from 'axios';
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import type { StopReason } from '../types';
import type { Call, CallState } from './call';
import { notify } from './listeners';
import type { Listeners } from './listeners';
import { destination } from './route';
import { reasonOutside } from './stop';
import type { Ending, Outcome } from './stop';

/**
 * The end of a call, in one place: the stop reason (named by `stop.ts`) on `retryState`, the error
 * the caller gets and its story, the breaker's count, and (from the plugin's response interceptor,
 * after axios's transforms) `onGiveUp`.
 */

/**
 * Settles the call with its outcome: the stop reason goes on `retryState`, a token held for a retry
 * never sent goes back, a stream body still held is let go, a closed breaker counts the call, and a bare failure of a custom adapter
 * (no config) is wrapped in an `AxiosError` with it as `cause`, so `error.config.retryState` and
 * `onGiveUp` reach it too.
 */
export function finish(run: Ending, outcome: Outcome): Promise<AxiosResponse> {
  run.token.giveBack();
  run.body.release();
  if (outcome.stopReason !== undefined) run.state.stopReason = outcome.stopReason;
  const { listeners } = run.shared;
  if (listeners.has('settle')) {
    const stopReason = 'response' in outcome ? undefined : outcome.stopReason;
    listeners.emit('settle', { origin: run.origin, stopReason, retryState: run.state });
  }
  if ('response' in outcome) {
    run.gate.succeeded(outcome.response);
    return Promise.resolve(outcome.response);
  }
  const thrown = ownError(outcome.error, run.config);
  run.gate.failed(thrown);
  tell(thrown, story(run, outcome.stopReason, outcome.error));
  return Promise.reject(thrown);
}

/**
 * The error the caller gets, carrying the call's config (so `error.config.retryState` and the
 * give-up report reach it): the failure itself when it has one; a bare failure of a custom adapter
 * wrapped in an `AxiosError` with it as `cause`; and for a cancel through a `CancelToken` (whose
 * reason is one error shared by every call of the token, with no config) a `CanceledError` of the
 * call's own, with the token's message and the reason as `cause`.
 */
function ownError(error: unknown, config: InternalAxiosRequestConfig): AxiosError {
  if (error !== null && typeof error === 'object' && 'config' in error) return error as AxiosError;
  if (isCancel(error)) {
    const own = new CanceledError((error as CanceledError<unknown>).message, config);
    Object.defineProperty(own, 'cause', { value: error, writable: true, enumerable: false, configurable: true });
    return own;
  }
  return AxiosError.from(error instanceof Error ? error : new Error(String(error)), undefined, config);
}

/** The message axios gave an error, before the plugin added its story (kept so a story is never added twice). */
const AXIOS_MESSAGE = Symbol('axios-resilience.message');

/**
 * Adds what the plugin did to a failed call's message, after axios's own words, in the message and
 * in the first line of the stack (which is what an uncaught error prints): `Request failed with
 * status code 503 (4 attempts over 1.3 s; stopped: retries-exhausted)`.
 */
export function tell(error: unknown, told: string): void {
  if (error === null || typeof error !== 'object') return;
  const holder = error as { message?: unknown; stack?: unknown; [AXIOS_MESSAGE]?: string };
  if (typeof holder.message !== 'string') return;
  const said = holder.message;
  const original = holder[AXIOS_MESSAGE] ?? said;
  const message = `${original} (${told})`;
  try {
    // Read before the message changes: V8 writes the stack's text on its first read, from the message then.
    const stack = holder.stack;
    holder.message = message;
    Object.defineProperty(holder, AXIOS_MESSAGE, { value: original, configurable: true });
    if (typeof stack === 'string' && stack.includes(said)) holder.stack = stack.replace(said, message);
  } catch {
    // A frozen error keeps its words.
  }
}

/** What the plugin did, in words: attempts, time, and why it stopped (with what to do, where the reason needs it). */
export function story(run: Ending, reason: StopReason, error: unknown): string {
  const { attempts } = run.state;
  const sent = attempts === 0 ? 'nothing sent' : `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  const over = attempts === 0 ? '' : ` over ${duration(run.shared.now() - run.startedAt)}`;
  return `${sent}${over}; stopped: ${reason}${because(run, reason, error)}`;
}

function because(run: Ending, reason: StopReason, error: unknown): string {
  switch (reason) {
    case 'deadline':
      return run.options.deadlineMs === undefined ? '' : ` of ${run.options.deadlineMs} ms`;
    case 'non-idempotent':
      return ` — ${dedupeAdvice(run)}`;
    case 'rate-limited': {
      const at = run.state.retryAt;
      return at === undefined ? '' : ` until ${new Date(at).toISOString()}`;
    }
    case 'hook-failed': {
      const thrown = run.state.hookError;
      // The hook's own error is the one the caller gets (a body factory's): its words are said already.
      if (thrown === error) return '';
      return thrown instanceof Error
        ? `: ${thrown.name}: ${thrown.message}`
        : thrown === undefined
          ? ''
          : `: ${String(thrown)}`;
    }
    default:
      return '';
  }
}

/**
 * Why a write was not repeated, and what would let it be: its server is not declared to dedupe the
 * key (naming the origin exactly as the call spelled it, beside what was declared, since
 * `localhost` and `127.0.0.1` are two origins), or the call carries no key at all.
 */
function dedupeAdvice(run: Ending): string {
  const { method, origin } = run;
  const keys = run.options.idempotencyKey;
  const done = `a ${method} to ${origin} may have been processed`;
  if (keys === false || run.state.idempotencyKey === undefined) {
    return `${done}, and it carries no Idempotency-Key`;
  }
  const declared = keys.declared;
  const listed =
    declared === undefined || declared.length === 0 ? '' : ` (which lists ${declared.slice(0, 3).join(', ')})`;
  return `${done}, and that origin is not in idempotencyKey.serverDedupes${listed}`;
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
  // Cancelled before the adapter ran: no story was told yet, and an error of the call's own may have one.
  if (state.attempts === 0 && (error as { config?: unknown } | null)?.config === config && config !== undefined) {
    if ((error as { [AXIOS_MESSAGE]?: string })[AXIOS_MESSAGE] === undefined)
      tell(error, `nothing sent; stopped: ${state.stopReason}`);
  }
  const event = { error, stopReason: state.stopReason, retryState: state };
  notify(call.options.onGiveUp, event, (hookError) => (state.hookError ??= hookError));
  if (listeners.has('giveUp')) {
    listeners.emit('giveUp', { ...event, origin: config === undefined ? 'relative:' : destination(config) });
  }
}
