import { AxiosError, CanceledError, isCancel } from 'axios';
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { CircuitOpenError } from '../types/errors';
import type { StopReason } from '../types';
import type { RetryToken } from './admission';
import type { BreakerGate } from './breaker-gate';
import type { Call, CallState } from './call';
import type { Ended } from './hooks';
import { cancellation } from './hooks';
import type { Listeners } from './listeners';
import { destination } from './route';

/**
 * The end of a call, in one place: why it stopped, the error the caller gets, the breaker's count,
 * and (from the plugin's response interceptor, after axios's transforms) `onGiveUp`.
 */

/**
 * How a call ends. A response, or a failure with its stop reason; a response may carry a stop
 * reason too, when `shouldRetry` asked to retry a good answer and a guard said no.
 */
export type Outcome = { response: AxiosResponse; stopReason?: StopReason } | { error: unknown; stopReason: StopReason };

/** What ending a call needs of it (the loop's `CallRun` is one). */
export interface Ending {
  readonly config: InternalAxiosRequestConfig;
  readonly state: CallState;
  readonly origin: string;
  readonly gate: BreakerGate;
  readonly token: RetryToken;
  readonly body: { release(): void };
  /** The attempt being retried: a failure, or a response `shouldRetry` asked to retry. */
  readonly failure: unknown;
  readonly lastError: unknown;
  readonly lastResponse: AxiosResponse | undefined;
  readonly shared: { readonly listeners: Listeners };
}

/**
 * The call stops for `reason` with `error` (by default the last failure). When that is a response
 * `shouldRetry` asked to retry, the call resolves with it: the guards stopped the retry of a good
 * answer.
 */
export function stop(run: Ending, reason: StopReason, error: unknown = run.failure): Outcome {
  const response = run.lastResponse;
  if (response !== undefined && error === response) return { response, stopReason: reason };
  return { error, stopReason: reason };
}

/** The breaker will not let the call (or its retry) out: a `CircuitOpenError`, caused by the last real failure. */
export function circuitOpen(run: Ending): Outcome {
  const response = run.lastResponse;
  if (response !== undefined) return { response, stopReason: 'circuit-open' };
  return { error: new CircuitOpenError(run.origin, run.config, run.lastError), stopReason: 'circuit-open' };
}

/**
 * A hook or a wait that did not end by itself: the hook failed (`hook-failed`, with the call's
 * last error, or the hook's when nothing failed yet), the deadline passed, or the call was
 * cancelled or the plugin closed (`aborted`).
 */
export function interrupted(
  run: Ending,
  ended: Exclude<Ended, { how: 'done' }>,
  deadlineError: () => unknown,
): Outcome {
  switch (ended.how) {
    case 'failed':
      run.state.hookError = ended.error;
      return stop(run, 'hook-failed', run.lastError ?? ended.error);
    case 'deadline':
      return stop(run, 'deadline', run.failure ?? deadlineError());
    case 'closed':
      return stop(
        run,
        'aborted',
        run.failure ?? new CanceledError('axios-resilience: the plugin was closed', undefined, run.config),
      );
    case 'aborted':
      return stop(run, 'aborted', cancellation(run.config) ?? new CanceledError(undefined, undefined, run.config));
  }
}

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
  const { error } = outcome;
  const thrown =
    error !== null && typeof error === 'object' && 'config' in error
      ? error
      : AxiosError.from(error instanceof Error ? error : new Error(String(error)), undefined, run.config);
  run.gate.failed(thrown);
  return Promise.reject(thrown);
}

/**
 * Reports a failed call to `onGiveUp`, exactly once, with a stop reason even when the call never
 * reached the attempt loop (cancelled before it was sent, or failed in a response transform). What
 * the hook throws is kept on `retryState.hookError`; the caller still gets the call's own error.
 */
export function giveUp(state: CallState, call: Call, error: unknown, listeners: Listeners): void {
  if (call.reported) return;
  call.reported = true;
  state.stopReason ??= isCancel(error) ? 'aborted' : 'not-retryable';
  const event = { error, stopReason: state.stopReason, retryState: state };
  const onGiveUp = call.options.onGiveUp;
  if (onGiveUp !== undefined) {
    try {
      onGiveUp(event);
    } catch (hookError) {
      state.hookError ??= hookError;
    }
  }
  if (listeners.has('giveUp')) {
    const config = (error as { config?: InternalAxiosRequestConfig } | null)?.config;
    listeners.emit('giveUp', { ...event, origin: config === undefined ? 'relative:' : destination(config) });
  }
}
