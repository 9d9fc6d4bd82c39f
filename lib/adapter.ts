import axios, { AxiosHeaders, CanceledError, getAdapter } from 'axios';
import type { AxiosAdapter, AxiosError, AxiosResponse, AxiosResponseHeaders, InternalAxiosRequestConfig } from 'axios';
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

/** A response header as text (AxiosHeaders or a custom adapter's plain object; the first of repeats). */
function headerValue(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  let value: unknown = AxiosHeaders.from(headers as AxiosResponseHeaders).get(name);
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
export function runCall(config: InternalAxiosRequestConfig, call: Call, shared: Shared): Promise<AxiosResponse> {
  try {
    return new AttemptLoop(config, call, shared).send();
  } catch (error) {
    // An unknown adapter name, or a breaker that is open before the first attempt.
    return Promise.reject(error);
  }
}

/**
 * The state of one call's attempts; each step is one method. Most calls succeed at once, so the
 * success path is synchronous code and one `then` on the attempt's promise: the async steps
 * (classifying, waiting, the fleet's probe) only run after a failure.
 */
class AttemptLoop {
  private readonly base: AxiosAdapter;
  private readonly budget: RetryBudget | undefined;
  private breaker: OriginBreaker | undefined;
  private lastError: unknown;
  private previousDelayMs: number;
  private deposited = false;
  /** Retries planned so far (0 before the first). */
  private retry = 0;

  constructor(
    private readonly config: InternalAxiosRequestConfig,
    private readonly call: Call,
    private readonly shared: Shared,
  ) {
    this.base = getAdapter(call.adapter ?? axios.defaults.adapter, config);
    this.budget = shared.budgetFor(call.origin);
    this.breaker = shared.breakers?.for(call.origin);
    this.previousDelayMs = call.options.baseDelayMs;
  }

  /** Sends one attempt; the call's response, after any retries. Throws when the breaker is open. */
  send(): Promise<AxiosResponse> {
    const breaker = this.breaker;
    if (breaker !== undefined) {
      if (isRejecting(breaker)) this.circuitOpen();
      // Half-open with a fleet: one probe for all processes, not one each.
      if (breaker.halfOpen && this.shared.breakers!.shared) return this.sendAfterProbe();
    }
    return this.dispatch();
  }

  private async sendAfterProbe(): Promise<AxiosResponse> {
    if (!(await this.shared.breakers!.acquireProbe(this.call.origin))) this.circuitOpen();
    if (isRejecting(this.breaker!)) this.circuitOpen();
    return this.dispatch();
  }

  private dispatch(): Promise<AxiosResponse> {
    const { config, call, breaker } = this;
    // Each first attempt that is really sent counts as one request for the budget.
    if (!this.deposited) {
      this.deposited = true;
      this.budget?.deposit();
    }
    call.state.attempts++;
    if (call.options.attemptHeader !== false)
      config.headers.set(call.options.attemptHeader, String(call.state.attempts));
    let sent: Promise<AxiosResponse>;
    try {
      // Promise.resolve: a custom adapter may hand back a thenable (a native promise passes as is).
      sent = breaker === undefined ? Promise.resolve(this.base(config)) : breaker.fire(this.base, config, call.options);
    } catch (error) {
      // A custom adapter that throws instead of rejecting.
      return this.recover(error);
    }
    return sent.then(undefined, (error: unknown) => this.recover(error));
  }

  /** After a failed attempt: re-sends when the failure is retried, else throws the caller's error. */
  private async recover(error: unknown): Promise<AxiosResponse> {
    const breaker = this.breaker;
    const code = breakerCode(error);
    if (breaker !== undefined && code === 'EOPENBREAKER') {
      // Another call's failure opened it between our check and the fire: nothing was sent.
      this.call.state.attempts--;
      this.circuitOpen();
    }
    if (breaker !== undefined && code === 'ESHUTDOWN') {
      // The breaker was evicted (past maxOrigins) or the plugin closed mid-call: send unguarded.
      this.call.state.attempts--;
      this.breaker = undefined;
      return this.send();
    }
    this.lastError = error;
    const delayMs = await this.planRetry(this.retry++);
    await this.pause(delayMs);
    return this.send();
  }

  /**
   * Decides whether the failure in `lastError` is retried, and after how long; throws the error
   * the caller gets (with its stop reason) when it is not. `retry` is 0 before the first retry.
   */
  async planRetry(retry: number): Promise<number> {
    const { call, shared, breaker, budget } = this;
    const { options, state } = call;
    const error = this.lastError;

    const decision = classify(
      { error, method: call.method, hasKey: state.idempotencyKey !== undefined, data: this.config.data },
      options,
    );
    if (!decision.retry) this.stop(decision.stopReason, error);
    if (retry >= options.retries) this.stop('retries-exhausted', error);
    // A call that was in flight when the plugin closed must not start a wait close() cannot end.
    if (shared.closed) this.stop('aborted', error);

    // The server's word beats our guess, within the cap. 0 or a past date means "now", and then
    // the jittered backoff still spreads the callers out.
    const asked = parseRetryAfter(headerValue((error as AxiosError).response?.headers, 'retry-after'), shared.now());
    let delayMs: number;
    let delaySource: 'backoff' | 'retry-after';
    if (asked !== undefined && asked > 0) {
      if (asked > options.maxDelayMs && options.retryAfter === 'fail') this.stop('retry-after-too-long', error);
      delayMs = Math.min(asked, options.maxDelayMs);
      delaySource = 'retry-after';
    } else {
      const input = {
        retry,
        baseDelayMs: options.baseDelayMs,
        maxDelayMs: options.maxDelayMs,
        previousDelayMs: this.previousDelayMs,
      };
      delayMs = computeBackoff(options.jitter, input, options.random);
      this.previousDelayMs = Math.max(delayMs, options.baseDelayMs);
      delaySource = 'backoff';
    }

    if (options.deadlineMs !== undefined && shared.now() + delayMs - call.startedAt > options.deadlineMs) {
      this.stop('deadline', error);
    }
    // An open breaker will not let the retry out; waiting it out would only hold the caller.
    if (breaker !== undefined && isRejecting(breaker)) this.circuitOpen();
    // Last, so a retry refused for another reason does not spend a token.
    if (budget !== undefined) {
      const grant = budget.tryWithdraw();
      // A shared budget answers with a promise; a local one at once.
      if (!(typeof grant === 'boolean' ? grant : await grant)) this.stop('budget-exhausted', error);
    }

    state.delaysMs.push(delayMs);
    if (options.onRetry) {
      await options.onRetry({
        attempt: state.attempts,
        delayMs,
        delaySource,
        reason: decision.reason,
        error: error as AxiosError,
        config: this.config,
      });
    }
    return delayMs;
  }

  /** Waits before the next attempt; ends early, and throws, on a cancel or the plugin closing. */
  async pause(delayMs: number): Promise<void> {
    const { config, shared } = this;
    const cancelledEarly = cancellation(config);
    if (cancelledEarly) this.stop('aborted', cancelledEarly);
    // onRetry may have awaited across a close().
    if (shared.closed) this.stop('aborted', this.lastError);
    const ended = await wait(delayMs, config, shared.closers);
    if (ended === 'aborted') this.stop('aborted', cancellation(config) ?? new CanceledError(undefined, config));
    if (ended === 'closed') this.stop('aborted', this.lastError);
  }

  private stop(stopReason: StopReason, error: unknown): never {
    this.call.state.stopReason = stopReason;
    throw error;
  }

  private circuitOpen(): never {
    this.call.state.stopReason = 'circuit-open';
    throw new CircuitOpenError(this.call.origin, this.config, this.lastError);
  }
}
