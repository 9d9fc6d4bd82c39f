import { AxiosError, CanceledError, isCancel } from 'axios';
import type { AxiosResponse } from 'axios';
import type { ResolvedOptions } from '../policy/options';
import type { Decision } from '../policy/classify';
import type { StopReason } from '../types';
import { CircuitOpenError } from '../types/errors';
import type { CallRun } from './call-run';
import { cancellation } from './hooks';

/**
 * Why a call stops, in one place. Steps report what happened as facts; the two tables here name
 * the reason, and `halt` the error the caller gets. `outcome.ts` only finishes the call.
 *
 * - **After an answer** (`refuseRetry`, `refuseWait`): pure rows over what the plan knows, one
 *   line each, in order; the first to object stops the call. The first row carries the decision
 *   table's word (`policy/classify.ts`: `not-retryable`, `non-idempotent`, and `aborted` for a
 *   cancelled attempt), with `shouldRetry`'s and the server's over it.
 * - **Before a send, and in a wait or a hook** (`halt`): a hook threw, the deadline passed, the call
 *   was cancelled or the plugin closed, a guard (breaker, budget, rate limiter) refused the send.
 *
 * Adding a stop reason is one row here and one in `__tests__/engine/plan.test.ts`.
 */

/**
 * How a call ends. A response, or a failure with its stop reason; a response may carry a stop
 * reason too, when `shouldRetry` asked to retry a good answer and a guard said no.
 */
export type Outcome = { response: AxiosResponse; stopReason?: StopReason } | { error: unknown; stopReason: StopReason };

/** What ending a call needs of it (a `CallRun` the loop took: its parts, the attempt being retried, the clock and listeners). */
export type Ending = Pick<
  CallRun,
  | 'config'
  | 'state'
  | 'origin'
  | 'method'
  | 'startedAt'
  | 'options'
  | 'shared'
  | 'gate'
  | 'token'
  | 'body'
  | 'failure'
  | 'lastError'
  | 'lastResponse'
  | 'deadline'
>;

/** What the tables know about a call whose attempt failed (or whose response is to be retried). */
export interface RetryFacts {
  /** The decision table's word on the attempt, with `shouldRetry`'s over it. */
  decision: Decision;
  /** Retries planned before this one (0 before the first retry). */
  retry: number;
  /** A browser hid why the attempt failed, and it may be a CORS refusal. */
  suspectedCors: boolean;
  /** `plugin.close()` was called. */
  closed: boolean;
  /**
   * What the server asks this call to wait, in ms: its `Retry-After` (or `retry-after-ms`), else for
   * a throttle, its spent quota's reset; `undefined` without a valid one.
   */
  retryAfterMs: number | undefined;
  /** The wait before the last retry (decorrelated jitter grows from it). */
  previousDelayMs: number;
  /** The time the deadline leaves, in ms; `undefined` without one. */
  timeLeftMs: number | undefined;
  /** The breaker would refuse the retry (it opened, and this call is not its probe). */
  breakerRefuses: boolean;
  /** The body can be sent again (a stream kept whole, within `replay.maxBytes`, or a body factory). */
  bodyReplayable: boolean;
  /** The key's rate limiter is on: what its gate would hold a send made now to. `undefined` otherwise. */
  gate?: GateWait | undefined;
  /**
   * The caller's `delay`, bound to the failure being retried: the wait it wants given the one
   * computed and the server's (`undefined`: the computed one). It may throw.
   */
  delay?: ((computedMs: number, serverMs: number | undefined) => unknown) | undefined;
}

/** What the key's gate (its rate limiter, while on) would hold a send made now to. */
export interface GateWait {
  /** How long until the send's turn, in ms: the key's hold and the queue ahead (`Infinity`: the queue is full). */
  turnMs: number;
  /** How long the key is held from now (a server's pause, a spent quota's reset), in ms; 0 when it is not. */
  heldForMs: number;
  /**
   * The call's refusal is load its paced scope absorbs (`engine/rate-gate.ts`): its retries are
   * bounded by its deadline, the queue's bound, `close()` and `maxDelayMs`, not by `retries`.
   */
  absorbs?: boolean;
}

/** The options the tables read. */
type StopOptions = Pick<ResolvedOptions, 'retries' | 'maxDelayMs' | 'retryAfter'>;

/** A retry refused, and why. `heldForMs`: the scope's quota is spent for that long (past `maxDelayMs`). */
export interface Refusal {
  stop: StopReason;
  heldForMs?: number;
}

/**
 * Whether the retry may be planned at all, before its wait is chosen: the first row to object says
 * why not. A row per line, in order.
 */
export function refuseRetry(facts: RetryFacts, options: StopOptions): Refusal | undefined {
  const { decision, retry, suspectedCors, gate, retryAfterMs } = facts;
  // The table (or shouldRetry) said no. A write the browser failed opaquely says why it was not repeated.
  if (!decision.retry) {
    return { stop: suspectedCors && decision.stopReason === 'non-idempotent' ? 'cors-suspected' : decision.stopReason };
  }
  // Never a truncated or empty retry: a stream past the replay bound was sent once.
  if (!facts.bodyReplayable) return { stop: 'body-not-replayable' };
  // The key's quota is spent until later than any wait may last: say when, rather than wait.
  if (gate !== undefined && gate.heldForMs > options.maxDelayMs)
    return { stop: 'rate-limited', heldForMs: gate.heldForMs };
  if (retry >= options.retries && gate?.absorbs !== true) return { stop: 'retries-exhausted' };
  // A suspected CORS refusal gets one retry (for a blip at first contact), not all of them.
  if (retry >= 1 && suspectedCors) return { stop: 'cors-suspected' };
  // A call in flight when the plugin closed must not start a wait close() cannot end.
  if (facts.closed) return { stop: 'aborted' };
  // With `retryAfter: 'fail'`, a server's wait past the cap stops the call rather than being cut short.
  if (options.retryAfter === 'fail' && retryAfterMs !== undefined && retryAfterMs > options.maxDelayMs) {
    return { stop: 'retry-after-too-long' };
  }
  return undefined;
}

/** Whether the wait chosen may be waited: the first row to object says why not. */
export function refuseWait(facts: RetryFacts, wait: { delayMs: number; source: string }): Refusal | undefined {
  const { timeLeftMs } = facts;
  const outlives = timeLeftMs !== undefined && wait.delayMs >= timeLeftMs;
  // The key's queue is at its bound, or waiting in it would outlast the deadline (a server's own
  // Retry-After past the deadline stays 'deadline', as without a limiter).
  if (wait.delayMs === Infinity || (wait.source === 'rate-limit' && outlives)) return { stop: 'rate-limited' };
  if (outlives) return { stop: 'deadline' };
  // An open breaker will not let the retry out; waiting it out would only hold the caller.
  if (facts.breakerRefuses) return { stop: 'circuit-open' };
  return undefined;
}

/**
 * What a step reports when the call cannot go on:
 * - `failed`: a hook threw or rejected (`own`: its error is what the call fails with — a body
 *   factory's, `breaker.key()`'s; else the call's last failure is, or the hook's when none);
 * - `expired`, `cancelled`, `closed`: the deadline passed, the call was cancelled, `close()` ran;
 * - `breaker`, `budget`: that guard refused the send (a retry's token, a move to another origin);
 * - `rate-held`: the scope's limiter turned the send away (`retryAt`: its quota is spent until then);
 * - `unreadable`: the body could not be made ready (a form whose Blob parts cannot be read);
 * - `refused`: a table above said no.
 */
export type Halt =
  | { how: 'failed'; error: unknown; own?: boolean }
  | { how: 'expired' | 'cancelled' | 'closed' | 'breaker' | 'budget' }
  | { how: 'rate-held'; key: string; retryAt?: number }
  | { how: 'unreadable'; error: unknown }
  | ({ how: 'refused' } & Refusal);

/** The call's outcome for what stopped it: the reason, and the error the caller gets. */
export function halt(run: Ending, fact: Halt): Outcome {
  switch (fact.how) {
    case 'failed':
      run.state.hookError = fact.error;
      return stop(run, 'hook-failed', fact.own === true ? fact.error : (run.lastError ?? fact.error));
    case 'expired':
      return stop(run, 'deadline', run.failure ?? run.deadline!.error(run.config));
    case 'closed':
      return stop(
        run,
        'aborted',
        run.failure ?? new CanceledError('axios-resilience: the plugin was closed', undefined, run.config),
      );
    case 'cancelled':
      return stop(run, 'aborted', cancellation(run.config) ?? new CanceledError(undefined, undefined, run.config));
    case 'breaker':
      return circuitOpen(run);
    case 'budget':
      return stop(run, 'budget-exhausted');
    case 'rate-held':
      if (fact.retryAt !== undefined) run.state.retryAt = fact.retryAt;
      return stop(run, 'rate-limited', run.failure ?? rateLimitedError(run, fact.key, fact.retryAt));
    case 'unreadable':
      return { error: fact.error, stopReason: 'not-retryable' };
    case 'refused':
      if (fact.heldForMs !== undefined) run.state.retryAt = run.shared.now() + fact.heldForMs;
      return fact.stop === 'circuit-open' ? circuitOpen(run) : stop(run, fact.stop);
  }
}

/**
 * The reason of a call that failed outside the attempt loop (cancelled before it was sent, or
 * failed in a response transform).
 */
export function reasonOutside(error: unknown): StopReason {
  return isCancel(error) ? 'aborted' : 'not-retryable';
}

/**
 * The call stops for `reason` with `error` (by default the last failure). When that is a response
 * `shouldRetryResponse` asked to retry, the call resolves with it: a guard stopped the retry of a
 * good answer.
 */
function stop(run: Ending, reason: StopReason, error: unknown = run.failure): Outcome {
  const response = run.lastResponse;
  if (response !== undefined && error === response) return { response, stopReason: reason };
  return { error, stopReason: reason };
}

/** The breaker will not let the call (or its retry) out: a `CircuitOpenError`, caused by the last real failure. */
function circuitOpen(run: Ending): Outcome {
  const response = run.lastResponse;
  if (response !== undefined) return { response, stopReason: 'circuit-open' };
  return { error: new CircuitOpenError(run.origin, run.config, run.lastError), stopReason: 'circuit-open' };
}

/**
 * The error of a call the limiter turned away before it sent anything: its scope's quota is spent
 * until `retryAt` (epoch ms, the plugin's clock), or its queue was full, or its deadline too near.
 */
function rateLimitedError(run: Ending, key: string, retryAt?: number): AxiosError {
  const why =
    retryAt === undefined
      ? 'the call would wait past its deadline or the queue bound'
      : `its quota is spent until ${new Date(retryAt).toISOString()}; nothing was sent`;
  return new AxiosError(`axios-resilience: ${key} is rate-limited: ${why}`, 'ERR_RATE_LIMITED', run.config);
}
