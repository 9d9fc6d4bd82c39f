import axios, { CanceledError, getAdapter } from 'axios';
import type { AxiosAdapter, AxiosError, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { computeBackoff } from './backoff';
import type { BreakerRegistry, OriginBreaker } from './breaker';
import type { RetryBudget } from './budget';
import { classify } from './classify';
import { CircuitOpenError } from './errors';
import type { ResolvedOptions } from './options';
import { parseRetryAfter } from './retry-after';
import type { RetryState, StopReason } from './types';
import { cancellation, wait } from './wait';

/** What one logical call carries from the request interceptor into its attempts. */
export interface Call {
  options: ResolvedOptions;
  state: RetryState;
  /** Upper-case method. */
  method: string;
  origin: string;
  /** The adapter the caller configured (a name, a list of names or a function). */
  adapter: InternalAxiosRequestConfig['adapter'];
  startedAt: number;
}

/** What the calls of one plugin share. */
export interface Shared {
  budgetFor(origin: string): RetryBudget | undefined;
  breakers: BreakerRegistry | undefined;
  /** Ends pending waits when the plugin closes. */
  closers: Set<() => void>;
  /** Set by plugin.close(): from then on no call starts a new wait. */
  closed: boolean;
  now: () => number;
}

function headerValue(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  let value: unknown;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    value = (headers as { get(name: string): unknown }).get(name);
  } else {
    const lower = name.toLowerCase();
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() === lower) value = (headers as Record<string, unknown>)[key];
    }
  }
  if (Array.isArray(value)) value = value[0];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** opossum rejects without calling the action while open (and while a half-open probe is out). */
function isRejecting(breaker: OriginBreaker): boolean {
  return !breaker.closed && !breaker.pendingClose;
}

function breakerCode(error: unknown): unknown {
  return error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
}

/**
 * Runs one logical call: sends attempts through the origin's breaker, classifies each failure,
 * and waits and re-sends while the decision table, the retry count, Retry-After, the deadline,
 * the breaker and the budget all allow it. Request and response transforms and interceptors are
 * outside this loop, so they run once per call and every attempt sends the same bytes.
 */
export async function runCall(config: InternalAxiosRequestConfig, call: Call, shared: Shared): Promise<AxiosResponse> {
  const { options, state, origin } = call;
  const base: AxiosAdapter = getAdapter(call.adapter ?? axios.defaults.adapter, config);
  const budget = shared.budgetFor(origin);
  const breakers = shared.breakers;
  let breaker = breakers?.for(origin);
  let lastError: unknown;
  let previousDelayMs = options.baseDelayMs;
  let deposited = false;
  // Each first attempt that is really sent counts as one request for the budget.
  const deposit = (): void => {
    if (!deposited && budget !== undefined) budget.deposit();
    deposited = true;
  };

  const stop = (stopReason: StopReason, error: unknown): never => {
    state.stopReason = stopReason;
    throw error;
  };
  const circuitOpen = (): never => {
    state.stopReason = 'circuit-open';
    throw new CircuitOpenError(origin, config, lastError);
  };

  for (let retry = 0; ; retry++) {
    let response: AxiosResponse | undefined;
    try {
      if (breaker === undefined) {
        deposit();
        state.attempts++;
        response = await base(config);
      } else {
        if (isRejecting(breaker)) circuitOpen();
        // Half-open with a fleet: one probe for all processes, not one each.
        if (breaker.halfOpen && breakers!.shared && !(await breakers!.acquireProbe(origin))) circuitOpen();
        if (isRejecting(breaker)) circuitOpen();
        deposit();
        state.attempts++;
        response = await breaker.fire(base, config, options);
      }
    } catch (error) {
      if (error instanceof CircuitOpenError) throw error;
      const code = breakerCode(error);
      if (breaker !== undefined && code === 'EOPENBREAKER') {
        // Another call's failure opened it between our check and the fire: nothing was sent.
        state.attempts--;
        circuitOpen();
      }
      if (breaker !== undefined && code === 'ESHUTDOWN') {
        // The breaker was evicted (past maxOrigins) or the plugin closed mid-call: send unguarded.
        breaker = undefined;
        state.attempts--;
        retry--;
        continue;
      }
      lastError = error;
    }
    if (response !== undefined) return response;
    const error = lastError;

    const decision = classify(
      { error, method: call.method, hasKey: state.idempotencyKey !== undefined, data: config.data },
      options,
    );
    if (!decision.retry) stop(decision.stopReason, error);
    if (retry >= options.retries) stop('retries-exhausted', error);
    // A call that was in flight when the plugin closed must not start a wait close() cannot end.
    if (shared.closed) stop('aborted', error);

    // The server's word beats our guess, within the cap. 0 or a past date means "now", and then
    // the jittered backoff still spreads the callers out.
    const asked = parseRetryAfter(headerValue((error as AxiosError).response?.headers, 'retry-after'), shared.now());
    let delayMs: number;
    let delaySource: 'backoff' | 'retry-after';
    if (asked !== undefined && asked > 0) {
      if (asked > options.maxDelayMs && options.retryAfter === 'fail') stop('retry-after-too-long', error);
      delayMs = Math.min(asked, options.maxDelayMs);
      delaySource = 'retry-after';
    } else {
      const input = { retry, baseDelayMs: options.baseDelayMs, maxDelayMs: options.maxDelayMs, previousDelayMs };
      delayMs = computeBackoff(options.jitter, input, options.random);
      previousDelayMs = Math.max(delayMs, options.baseDelayMs);
      delaySource = 'backoff';
    }

    if (options.deadlineMs !== undefined && shared.now() + delayMs - call.startedAt > options.deadlineMs) {
      stop('deadline', error);
    }
    // An open breaker will not let the retry out; waiting it out would only hold the caller.
    if (breaker !== undefined && isRejecting(breaker)) circuitOpen();
    // Last, so a retry refused for another reason does not spend a token.
    if (budget !== undefined) {
      const grant = budget.tryWithdraw();
      // A shared budget answers with a promise; a local one at once, with no await on the way.
      if (!(typeof grant === 'boolean' ? grant : await grant)) stop('budget-exhausted', error);
    }

    state.delaysMs.push(delayMs);
    if (options.onRetry) {
      await options.onRetry({
        attempt: state.attempts,
        delayMs,
        delaySource,
        reason: decision.reason,
        error: error as AxiosError,
        config,
      });
    }
    const cancelledEarly = cancellation(config);
    if (cancelledEarly) stop('aborted', cancelledEarly);
    // onRetry may have awaited across a close().
    if (shared.closed) stop('aborted', error);
    const ended = await wait(delayMs, config, shared.closers);
    if (ended === 'aborted') stop('aborted', cancellation(config) ?? new CanceledError(undefined, config));
    if (ended === 'closed') stop('aborted', error);
  }
}
