import axios, { AxiosError, AxiosHeaders, CanceledError, getAdapter, isCancel } from 'axios';
import type { AxiosAdapter, AxiosResponse, AxiosResponseHeaders, InternalAxiosRequestConfig } from 'axios';
import { computeBackoff } from './backoff';
import { fixBody, needsFixedBody, releaseBody } from './body';
import type { BreakerRegistry, GuardedCall, OriginBreaker } from './breaker';
import { classify, failureKind } from './classify';
import { CircuitOpenError } from './errors';
import type { ResolvedOptions } from './options';
import { parseRetryAfter } from './retry-after';
import type { RetryBudgetLike, RetryState, StopReason } from './types';
import { cancellation, interruptible } from './wait';
import type { WaitEnd } from './wait';

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
  /** The key this plugin generated for the call; a config re-sent after a success gets a new one. */
  generatedKey: string | undefined;
  /** `onGiveUp` has been told about this call. */
  reported: boolean;
}

/** What the calls of one plugin share. */
export interface Shared {
  budgetFor(origin: string): RetryBudgetLike | undefined;
  breakers: BreakerRegistry | undefined;
  /** Which breaker guards a call: its origin unless `breaker.key` says otherwise. */
  breakerKey(config: InternalAxiosRequestConfig, origin: string): string;
  /** Ends pending waits and hooks when the plugin closes. */
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

/** The code of one of opossum's own refusals (`EOPENBREAKER`, `ESHUTDOWN`); an AxiosError has neither. */
function opossumCode(error: unknown): unknown {
  return error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
}

function hasResponse(error: unknown): boolean {
  const response = (error as { response?: unknown } | null)?.response;
  return response !== undefined && response !== null;
}

/**
 * Runs one logical call: the whole call goes through its breaker once, and inside it each attempt
 * is sent, classified, and waited for and re-sent while the decision table, the retry count,
 * Retry-After, the deadline, the breaker and the budget all allow it. Request and response
 * transforms and interceptors are outside this loop, so they run once per call and every attempt
 * sends the same bytes.
 */
export function runCall(config: InternalAxiosRequestConfig, call: Call, shared: Shared): Promise<AxiosResponse> {
  try {
    return new AttemptLoop(config, call, shared).start();
  } catch (error) {
    // An unknown adapter name.
    return Promise.reject(error);
  }
}

/**
 * The state of one call's attempts; each step is one method. Most calls succeed at once, so the
 * success path is synchronous code and one `then` on the attempt's promise: the async steps
 * (classifying, waiting, hooks, the fleet's probe) only run after a failure.
 */
class AttemptLoop implements GuardedCall {
  private readonly base: AxiosAdapter;
  private readonly budget: RetryBudgetLike | undefined;
  private breaker: OriginBreaker | undefined;
  private readonly breakerKey: string;
  /** axios's own per-attempt timeout (0: none), before the deadline shortens it. */
  private readonly timeout: number;
  private lastError: unknown;
  private previousDelayMs: number;
  /** Retries planned so far (0 before the first). */
  private retry = 0;
  /** A budget token is held for a retry not yet sent (given back if it never is). */
  private holdsToken = false;
  /** This call is the breaker's half-open probe: its outcome, retries included, decides. */
  private probe = false;
  /** The current attempt's timeout is what the deadline left, shorter than axios's own. */
  private clipped = false;

  constructor(
    private readonly config: InternalAxiosRequestConfig,
    private readonly call: Call,
    private readonly shared: Shared,
  ) {
    this.base = getAdapter(call.adapter ?? axios.defaults.adapter, config);
    this.budget = shared.budgetFor(call.origin);
    this.breakerKey = shared.breakers === undefined ? call.origin : shared.breakerKey(config, call.origin);
    this.breaker = shared.breakers?.for(this.breakerKey);
    this.previousDelayMs = call.options.baseDelayMs;
    this.timeout = config.timeout ?? 0;
  }

  /** The call's response, after any retries; through its breaker when there is one. */
  start(): Promise<AxiosResponse> {
    const breaker = this.breaker;
    if (breaker === undefined) return this.run();
    // Half-open with a fleet: one probe for all processes, not one each.
    if (breaker.halfOpen && this.shared.breakers!.shared) return this.startAfterFleetProbe(breaker);
    return this.fire(breaker);
  }

  private async startAfterFleetProbe(breaker: OriginBreaker): Promise<AxiosResponse> {
    if (!(await this.shared.breakers!.acquireProbe(this.breakerKey))) this.circuitOpen();
    return this.fire(breaker);
  }

  private fire(breaker: OriginBreaker): Promise<AxiosResponse> {
    return breaker.fire(this).then(undefined, (error: unknown) => {
      const code = opossumCode(error);
      // Open: opossum refused (and counted it in stats.rejects); nothing was sent.
      if (code === 'EOPENBREAKER') this.circuitOpen();
      // Evicted (past maxOrigins) or the plugin closed: send unguarded.
      if (code === 'ESHUTDOWN') {
        this.breaker = undefined;
        return this.run();
      }
      throw error;
    });
  }

  /** Runs every attempt of the call (opossum calls this inside `fire`). */
  run(): Promise<AxiosResponse> {
    this.probe = this.breaker?.halfOpen === true;
    if (needsFixedBody(this.config.data)) {
      return fixBody(this.config).then(
        () => this.attempt(),
        (error: unknown) => this.stop('not-retryable', error),
      );
    }
    return this.attempt();
  }

  /** Counts a failure against the breaker when it is the downstream's: a retryable status or a transport failure. */
  isDownstreamFailure(error: unknown): boolean {
    const failure = error instanceof CircuitOpenError ? error.cause : error;
    const kind = failureKind(failure, this.call.options);
    return kind === 'status' || kind === 'network';
  }

  /** Sends one attempt; the call's response, after any retries. */
  private attempt(): Promise<AxiosResponse> {
    const { config, call } = this;
    const { options, state } = call;
    const attemptConfig = options.deadlineMs === undefined ? config : this.withinDeadline(options.deadlineMs);
    // Each call that is really sent counts as one request for the budget.
    if (state.attempts === 0) this.budget?.deposit();
    state.attempts++;
    this.holdsToken = false;
    if (options.attemptHeader !== false) config.headers.set(options.attemptHeader, String(state.attempts));
    let sent: Promise<AxiosResponse>;
    try {
      // Promise.resolve: a custom adapter may hand back a thenable (a native promise passes as is).
      sent = Promise.resolve(this.base(attemptConfig));
    } catch (error) {
      // A custom adapter that throws instead of rejecting.
      return this.recover(error);
    }
    return sent.then(undefined, (error: unknown) => this.recover(error));
  }

  /**
   * The config of an attempt under a deadline: its timeout is the smaller of axios's and the time
   * the deadline leaves, so an attempt in flight ends at the deadline. A copy, so the caller's
   * config keeps its own timeout for a re-send.
   */
  private withinDeadline(deadlineMs: number): InternalAxiosRequestConfig {
    const left = Math.ceil(deadlineMs - (this.shared.now() - this.call.startedAt));
    if (left <= 0) {
      this.stop(
        'deadline',
        this.lastError ?? new AxiosError(`deadline of ${deadlineMs} ms passed`, AxiosError.ETIMEDOUT, this.config),
      );
    }
    this.clipped = this.timeout === 0 || left < this.timeout;
    return this.clipped ? { ...this.config, timeout: left } : this.config;
  }

  /** After a failed attempt: re-sends when the failure is retried, else throws the caller's error. */
  private async recover(error: unknown): Promise<AxiosResponse> {
    this.lastError = error;
    const delayMs = await this.planRetry(this.retry++);
    releaseBody(error);
    await this.pause(delayMs);
    // Other calls may have opened the breaker during the wait: the retry would fail anyway.
    if (this.breaker !== undefined && !this.probe && isRejecting(this.breaker)) {
      this.giveBackToken();
      this.circuitOpen();
    }
    return this.attempt();
  }

  /**
   * Decides whether the failure in `lastError` is retried, and after how long; throws the error
   * the caller gets (with its stop reason) when it is not. `retry` is 0 before the first retry.
   */
  private async planRetry(retry: number): Promise<number> {
    const { call, shared, breaker, budget, config } = this;
    const { options, state } = call;
    const error = this.lastError;

    // The deadline ended this attempt: its timeout was the time the deadline left.
    if (this.clipped && !hasResponse(error) && !isCancel(error)) this.stop('deadline', error);
    const decision = classify(
      { error, method: call.method, hasKey: state.idempotencyKey !== undefined, data: config.data },
      options,
    );
    if (!decision.retry) this.stop(decision.stopReason, error);
    if (retry >= options.retries) this.stop('retries-exhausted', error);
    // A call that was in flight when the plugin closed must not start a wait close() cannot end.
    if (shared.closed) this.stop('aborted', error);

    // The server's word beats our guess, within the cap. 0 or a past date means "now", and then
    // the jittered backoff still spreads the callers out.
    const asked = parseRetryAfter(
      headerValue((error as { response?: { headers?: unknown } }).response?.headers, 'retry-after'),
      shared.now(),
    );
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

    if (options.deadlineMs !== undefined && shared.now() + delayMs - call.startedAt >= options.deadlineMs) {
      this.stop('deadline', error);
    }
    // An open breaker will not let the retry out; waiting it out would only hold the caller. (The
    // half-open probe is the one call it lets through: its retries are part of it.)
    if (breaker !== undefined && !this.probe && isRejecting(breaker)) this.circuitOpen();
    // Last, so a retry refused for another reason does not spend a token.
    if (budget !== undefined) {
      const grant = budget.tryWithdraw();
      // A shared budget answers with a promise; a local one at once.
      if (!(typeof grant === 'boolean' ? grant : await grant)) this.stop('budget-exhausted', error);
      this.holdsToken = true;
    }

    if (options.onRetry) await this.runHook(options.onRetry, delayMs, delaySource, decision.reason);
    state.delaysMs.push(delayMs);
    return delayMs;
  }

  /**
   * Runs `onRetry`. It observes and may change headers; it cannot replace the outcome: if it
   * throws, the call fails with its own last error; an abort or close ends the call at once.
   */
  private async runHook(
    onRetry: NonNullable<ResolvedOptions['onRetry']>,
    delayMs: number,
    delaySource: 'backoff' | 'retry-after',
    reason: string,
  ): Promise<void> {
    const { config, call, shared } = this;
    let result: unknown;
    try {
      result = onRetry({
        attempt: call.state.attempts,
        delayMs,
        delaySource,
        reason,
        error: this.lastError as AxiosError,
        config,
      });
    } catch (hookError) {
      this.hookFailed(hookError);
    }
    if (typeof (result as PromiseLike<unknown> | undefined)?.then !== 'function') return;
    const ended = await interruptible(Promise.resolve(result), config, shared.closers);
    if (ended.how === 'failed') this.hookFailed(ended.error);
    if (ended.how !== 'done') this.interrupted(ended.how);
  }

  /** Waits before the next attempt; ends early, and throws, on a cancel or the plugin closing. */
  private async pause(delayMs: number): Promise<void> {
    if (cancellation(this.config)) this.interrupted('aborted');
    // A hook may have awaited across a close().
    if (this.shared.closed) this.interrupted('closed');
    const ended = await interruptible(delayMs, this.config, this.shared.closers);
    if (ended.how !== 'done') this.interrupted(ended.how as WaitEnd);
  }

  /** A cancel or close cut a wait or hook short: no retry is sent, the token goes back. */
  private interrupted(how: WaitEnd): never {
    this.giveBackToken();
    if (how === 'closed') this.stop('aborted', this.lastError);
    this.stop('aborted', cancellation(this.config) ?? new CanceledError(undefined, undefined, this.config));
  }

  private hookFailed(hookError: unknown): never {
    this.giveBackToken();
    this.call.state.hookError = hookError;
    this.stop('hook-failed', this.lastError);
  }

  private giveBackToken(): void {
    if (!this.holdsToken) return;
    this.holdsToken = false;
    this.budget?.refund();
  }

  private stop(stopReason: StopReason, error: unknown): never {
    this.call.state.stopReason = stopReason;
    // A custom adapter's bare failure carries no config: the caller gets an AxiosError with one
    // (the failure as its cause), so `error.config.retryState` and onGiveUp reach it too.
    if (error !== null && typeof error === 'object' && 'config' in error) throw error;
    throw AxiosError.from(error instanceof Error ? error : new Error(String(error)), undefined, this.config);
  }

  private circuitOpen(): never {
    this.call.state.stopReason = 'circuit-open';
    throw new CircuitOpenError(this.call.origin, this.config, this.lastError);
  }
}
