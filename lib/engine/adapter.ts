import { AxiosError, AxiosHeaders, CanceledError, isCancel } from 'axios';
import type { AxiosAdapter, AxiosResponse, AxiosResponseHeaders, InternalAxiosRequestConfig } from 'axios';
import { computeBackoff } from '../policy/backoff';
import { fixBody, needsFixedBody, releaseBody } from './body';
import { countFailure } from '../guards/breaker';
import type { BreakerRegistry, Guard, GuardedCall, OriginBreaker } from '../guards/breaker';
import type { Call, CallState } from './call';
import type { CorsEvidence } from '../guards/cors';
import { classify, failureKind, isStream, safeToRepeat } from '../policy/classify';
import type { Decision } from '../policy/classify';
import { CircuitOpenError } from '../types/errors';
import type { ResolvedHedge, ResolvedOptions } from '../policy/options';
import { hedgeDelay, race } from './hedge';
import { attachKey, callerKey, keysCall } from '../policy/idempotency';
import { originOf } from '../policy/origin';
import type { LatencyWindow } from './hedge';
import { parseRetryAfter } from '../policy/retry-after';
import type { RetryBudgetLike, RetryContext, RetryDecision, StopReason } from '../types';
import { cancellation, interruptible } from './wait';
import type { WaitEnd } from './wait';

/** What the calls of one plugin share. */
export interface Shared {
  budgetFor(origin: string): RetryBudgetLike | undefined;
  breakers: BreakerRegistry | undefined;
  /** Which breaker guards a call, when `breaker.key` is set (else its origin). */
  breakerKey: ((config: InternalAxiosRequestConfig, origin: string) => string) | undefined;
  /** Ends pending waits and hooks when the plugin closes. */
  closers: Set<() => void>;
  /** Set by plugin.close(): from then on no call starts a new wait. */
  closed: boolean;
  now: () => number;
  /** Which cross-origin APIs answered a request carrying the plugin's headers (browsers only). */
  cors: CorsEvidence;
  /** Recent attempt latencies per origin, for adaptive hedge delays (made on first use). */
  latencyFor(origin: string): LatencyWindow;
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

/** axios lower-cases the method; the decision table and the key settings speak upper case. */
const UPPER = new Map(['get', 'post', 'put', 'patch', 'delete', 'head', 'options'].map((m) => [m, m.toUpperCase()]));

function methodOf(config: InternalAxiosRequestConfig): string {
  const method = config.method ?? 'get';
  return UPPER.get(method) ?? method.toUpperCase();
}

/** What a call's attempts work with, fixed when the call reaches the adapter. */
interface CallContext {
  readonly config: InternalAxiosRequestConfig;
  readonly call: Call;
  readonly state: CallState;
  /** The caller's adapter. */
  readonly base: AxiosAdapter;
  readonly shared: Shared;
  readonly options: ResolvedOptions;
  /** Upper-case method. */
  readonly method: string;
  readonly origin: string;
  readonly budget: RetryBudgetLike | undefined;
  readonly guard: Guard | undefined;
  readonly breakerKey: string;
  /** In a browser, cross-origin, with the plugin's headers: an ERR_NETWORK may be a CORS refusal. */
  readonly corsSensitive: boolean;
  /** When the call began (the plugin's clock), or 0 for a call without a deadline: no other rule reads it. */
  readonly startedAt: number;
}

/**
 * Runs one logical call over `base`, the caller's adapter: the Idempotency-Key is attached once,
 * then the call goes through its breaker once, and inside it each attempt is sent, classified, and
 * waited for and re-sent while the decision table, the retry count, Retry-After, the deadline, the
 * breaker and the budget all allow it. Request and response transforms and interceptors are
 * outside this loop, so they run once per call and every attempt sends the same bytes.
 */
export function runCall(
  config: InternalAxiosRequestConfig,
  call: Call,
  state: CallState,
  base: AxiosAdapter,
  shared: Shared,
): Promise<AxiosResponse> {
  let context: CallContext;
  try {
    context = contextOf(config, call, state, base, shared);
  } catch (error) {
    // A key from a user's generator that is no valid header value, or a breaker.key() that throws.
    return Promise.reject(error);
  }
  const breaker = context.guard?.breaker;
  if (context.options.plain && !context.corsSensitive && !needsFixedBody(config.data) && (breaker?.closed ?? true)) {
    return firstAttempt(context);
  }
  return new AttemptLoop(context).start();
}

function contextOf(
  config: InternalAxiosRequestConfig,
  call: Call,
  state: CallState,
  base: AxiosAdapter,
  shared: Shared,
): CallContext {
  const options = call.options;
  const method = methodOf(config);
  // A call the plugin does not key (a GET) is looked at for a key of the caller's only if it fails.
  const origin = originOf(config.url, config.baseURL);
  if (keysCall(method, options, call.staleKey)) {
    const key = attachKey(config.headers, method, options, call.staleKey);
    if (key !== undefined) {
      state.idempotencyKey = key.key;
      if (key.generated) call.generatedKey = key.key;
      call.deduped = !key.generated || dedupedAt(options, origin);
    }
  }
  const breakerKey = shared.breakerKey === undefined ? origin : shared.breakerKey(config, origin);
  // One object literal: it is made whole, where a class instance would be built field by field.
  return {
    config,
    call,
    state,
    base,
    shared,
    options,
    method,
    origin,
    budget: shared.budgetFor(origin),
    guard: shared.breakers?.for(breakerKey),
    breakerKey,
    corsSensitive: shared.cors.applies(origin, state, options),
    startedAt: options.deadlineMs === undefined ? 0 : shared.now(),
  };
}

/** Whether `origin`'s server is declared to dedupe the keys the plugin generates. */
function dedupedAt(options: ResolvedOptions, origin: string): boolean {
  return options.idempotencyKey !== false && options.idempotencyKey.serverDedupes(origin);
}

/** A custom adapter may hand back a thenable (a native promise passes as is). */
function dispatch(base: AxiosAdapter, config: InternalAxiosRequestConfig): Promise<AxiosResponse> {
  return Promise.resolve(base(config));
}

/**
 * The first attempt of a call that needs nothing but a send — no hook, hedge, deadline, predicate,
 * attempt header or FormData body, and a closed breaker or none — which is most calls: one `then`
 * on the attempt's promise, and the attempt loop is built only if the attempt fails. (It does what
 * `AttemptLoop.send` does for a first attempt.)
 */
function firstAttempt(context: CallContext): Promise<AxiosResponse> {
  const guard = context.guard;
  const retry = (error: unknown): Promise<AxiosResponse> =>
    new AttemptLoop(context, guard !== undefined).recover(error);
  context.budget?.deposit();
  context.state.attempts = 1;
  let sent: Promise<AxiosResponse>;
  try {
    sent = dispatch(context.base, context.config);
  } catch (error) {
    // A custom adapter that throws instead of rejecting.
    return retry(error);
  }
  return sent.then(guard?.succeed, retry);
}

/**
 * The state of one call's attempts; each step is one method. The async steps (classifying,
 * waiting, hooks, the fleet's probe) only run after a failure.
 */
class AttemptLoop implements GuardedCall {
  private readonly config: InternalAxiosRequestConfig;
  private readonly call: Call;
  private readonly state: CallState;
  private readonly base: AxiosAdapter;
  private readonly shared: Shared;
  private readonly options: ResolvedOptions;
  private readonly method: string;
  private readonly origin: string;
  private readonly startedAt: number;
  private readonly budget: RetryBudgetLike | undefined;
  /** The call's breaker and its counting state; dropped if the breaker was shut down under it. */
  private guard: Guard | undefined;
  private readonly breakerKey: string;
  /** axios's own per-attempt timeout (0: none), before the deadline shortens it. */
  private readonly timeout: number;
  private readonly corsSensitive: boolean;
  private lastError: unknown;
  /** A resolved response that `shouldRetry` asked to retry (cleared by the next failure). */
  private lastResponse: AxiosResponse | undefined;
  private previousDelayMs: number;
  /** Retries planned so far (0 before the first). */
  private retry = 0;
  /** A budget token is held for a retry not yet sent (given back if it never is). */
  private holdsToken = false;
  /** This call is the breaker's half-open probe: its outcome, retries included, decides. */
  private probe = false;
  /** The current attempt's timeout is what the deadline left, shorter than axios's own. */
  private clipped = false;
  /** That outcome has been counted (a call is counted once, however deep its retries). */
  private settled = false;

  /**
   * `counted`: the call runs under a closed breaker without `fire`, and its outcome is counted
   * when it ends (set by `start` for a call that begins here).
   */
  constructor(
    context: CallContext,
    private counted = false,
  ) {
    this.config = context.config;
    this.state = context.state;
    this.base = context.base;
    this.shared = context.shared;
    this.options = context.options;
    this.method = context.method;
    this.origin = context.origin;
    this.startedAt = context.startedAt;
    this.budget = context.budget;
    this.guard = context.guard;
    this.breakerKey = context.breakerKey;
    this.timeout = context.config.timeout ?? 0;
    this.corsSensitive = context.corsSensitive;
    this.previousDelayMs = context.options.baseDelayMs;
    this.call = context.call;
    if (!keysCall(context.method, context.options, context.call.staleKey)) {
      const key = callerKey(context.config.headers, context.options);
      if (key !== undefined) {
        this.state.idempotencyKey = key;
        this.call.deduped = true;
      }
    }
  }

  private get breaker(): OriginBreaker | undefined {
    return this.guard?.breaker;
  }

  /** The call's response, after any retries; through its breaker when there is one. */
  start(): Promise<AxiosResponse> {
    const breaker = this.breaker;
    if (breaker === undefined) return this.run();
    if (breaker.closed) {
      this.counted = true;
      return this.run();
    }
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
        this.guard = undefined;
        return this.run();
      }
      throw error;
    });
  }

  /** Runs every attempt of the call (opossum calls this inside `fire`). */
  run(): Promise<AxiosResponse> {
    this.probe = !this.counted && this.breaker?.halfOpen === true;
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
    // A suspected CORS refusal says nothing about the origin's health.
    if (this.corsSensitive && this.shared.cors.suspect(this.origin, failure)) return false;
    const kind = failureKind(failure, this.options);
    return kind === 'status' || kind === 'network';
  }

  /** Runs `beforeAttempt` when there is one, then sends the attempt. */
  private attempt(): Promise<AxiosResponse> {
    const hook = this.options.beforeAttempt;
    if (hook === undefined) return this.send();
    const info = { attempt: this.state.attempts + 1, timeLeftMs: this.timeLeft() };
    return this.runHook(() => hook(this.config, info), info.timeLeftMs).then(() => this.send());
  }

  /** Sends one attempt; the call's response, after any retries. */
  private send(): Promise<AxiosResponse> {
    const { config, options, state } = this;
    const attemptConfig = options.deadlineMs === undefined ? config : this.withinDeadline();
    // Each call that is really sent counts as one request for the budget.
    if (state.attempts === 0) this.budget?.deposit();
    state.attempts++;
    this.holdsToken = false;
    if (options.attemptHeader !== false) config.headers.set(options.attemptHeader, String(state.attempts));
    let sent: Promise<AxiosResponse>;
    try {
      sent =
        options.hedge !== false && this.hedgeable()
          ? this.hedged(options.hedge, attemptConfig)
          : dispatch(this.base, attemptConfig);
    } catch (error) {
      // A custom adapter that throws instead of rejecting.
      return this.recover(error);
    }
    // Without a predicate (or CORS evidence to note) a resolved attempt is the call's answer: only
    // the closed breaker's count runs on the success path.
    const resolved =
      options.shouldRetry !== undefined || this.corsSensitive
        ? (response: AxiosResponse) => this.judge(response)
        : this.counted
          ? (response: AxiosResponse) => this.succeeded(response)
          : undefined;
    return sent.then(resolved, (error: unknown) => this.recover(error));
  }

  /** The call's answer: counted as a success by a closed breaker, once. */
  private succeeded(response: AxiosResponse): AxiosResponse {
    if (this.counted && !this.settled) {
      this.settled = true;
      this.guard!.succeed(response);
    }
    return response;
  }

  /** The call's final failure, about to be thrown: handed to a closed breaker, once. */
  private failed(error: unknown): void {
    if (this.counted && !this.settled) {
      this.settled = true;
      countFailure(this.guard!, this, error);
    }
  }

  /** Safe to send twice: an idempotent method or a keyed call, and a body that can be sent again. */
  private hedgeable(): boolean {
    const { config } = this;
    return safeToRepeat(this.method, this.call.deduped) && !isStream(config.data);
  }

  /**
   * The attempt as a race of copies (see hedge.ts). Each copy has its own headers (its attempt
   * number) and abort signal; a later copy's timeout is what the deadline leaves when it starts.
   */
  private hedged(hedge: ResolvedHedge, attemptConfig: InternalAxiosRequestConfig): Promise<AxiosResponse> {
    const { config, shared } = this;
    const { deadlineMs, attemptHeader } = this.options;
    const inPage = shared.cors.page;
    const latencies = hedge.percentile === undefined ? undefined : shared.latencyFor(this.origin);
    const delayMs = hedgeDelay(hedge, latencies);
    return race({
      send: (index, signal) => {
        const copy = index === 0 || deadlineMs === undefined ? attemptConfig : this.withinDeadline();
        const headers = AxiosHeaders.from(config.headers);
        // A copy says so, for servers and for the OpenTelemetry hook (axios-resilience/otel).
        if (index > 0 && attemptHeader !== false) headers.set(attemptHeader, `${this.state.attempts}; hedge`);
        if (index === 0 || inPage === undefined) return dispatch(this.base, { ...copy, headers, signal });
        // A browser holds a second request for the same URL until the first's response is in its
        // HTTP cache (the cache lock), which would make every copy as slow as the attempt it hedges.
        headers.set('Cache-Control', 'no-cache');
        return dispatch(this.base, {
          ...copy,
          headers,
          signal,
          fetchOptions: { ...copy.fetchOptions, cache: 'no-store' },
        });
      },
      mayHedge: () => this.mayHedge(delayMs),
      delayMs,
      maxHedges: hedge.maxHedges,
      signal: config.signal as AbortSignal | undefined,
      closers: shared.closers,
      now: shared.now,
    }).then(({ response, winner, latencyMs }) => {
      latencies?.record(latencyMs);
      if (winner > 0) this.state.hedgeWon = true;
      return response;
    });
  }

  /** Whether one more hedged copy may go out now: the breaker closed, a budget token granted. */
  private async mayHedge(delayMs: number): Promise<boolean> {
    const { config, shared, breaker, budget } = this;
    if (shared.closed || cancellation(config) !== undefined) return false;
    if (breaker !== undefined && !breaker.closed) return false;
    if (budget !== undefined && !(await this.takeToken(budget))) return false;
    const state = this.state;
    state.attempts += 1;
    state.hedges = (state.hedges ?? 0) + 1;
    try {
      this.options.onHedge?.({ attempt: state.attempts, delayMs, config });
    } catch {
      // An observer: what it throws does not stop the copy.
    }
    return true;
  }

  /** The time the deadline leaves, in ms, or `undefined` without one. */
  private timeLeft(): number | undefined {
    const deadlineMs = this.options.deadlineMs;
    return deadlineMs === undefined ? undefined : deadlineMs - (this.shared.now() - this.startedAt);
  }

  /**
   * The config of an attempt under a deadline: its timeout is the smaller of axios's and the time
   * the deadline leaves, so an attempt in flight ends at the deadline. A copy, so the caller's
   * config keeps its own timeout for a re-send.
   */
  private withinDeadline(): InternalAxiosRequestConfig {
    const left = Math.ceil(this.timeLeft()!);
    if (left <= 0) {
      this.stop('deadline', this.failure ?? this.deadlineError());
    }
    this.clipped = this.timeout === 0 || left < this.timeout;
    return this.clipped ? { ...this.config, timeout: left } : this.config;
  }

  /**
   * After a failed attempt (one of the loop's, or the first attempt `firstAttempt` sent): re-sends
   * when the failure is retried, else throws the caller's error.
   */
  async recover(error: unknown): Promise<AxiosResponse> {
    this.lastError = error;
    this.lastResponse = undefined;
    if (this.corsSensitive && hasResponse(error)) this.shared.cors.answer(this.origin);
    return this.retryWith(await this.decide(error));
  }

  /** After a resolved attempt, with `shouldRetry` set: the response, or the retry it asks for. */
  private async judge(response: AxiosResponse): Promise<AxiosResponse> {
    if (this.corsSensitive) this.shared.cors.answer(this.origin);
    if (this.options.shouldRetry === undefined) return this.succeeded(response);
    this.lastError = undefined;
    const verdict = await this.ask(undefined, response, { retry: false, reason: 'success' });
    if (verdict !== true) return this.succeeded(response);
    this.lastResponse = response;
    try {
      return await this.retryWith({ retry: true, reason: 'shouldRetry' });
    } catch (stopped) {
      // The guards stopped the retry of a good response: the call resolves with it.
      if (stopped instanceof ResolveWith) return this.succeeded(stopped.response);
      throw stopped;
    }
  }

  /** The table's decision for a failed attempt, with `shouldRetry`'s word over it where it may have one. */
  private async decide(error: unknown): Promise<Decision> {
    const { config } = this;
    // The deadline ended this attempt: its timeout was the time the deadline left.
    if (this.clipped && !hasResponse(error) && !isCancel(error)) this.stop('deadline', error);
    const keyed = this.state.idempotencyKey !== undefined;
    const facts = { error, method: this.method, keyed, deduped: this.call.deduped, data: config.data };
    const decision = classify(facts, this.options);
    // A cancel is never retried and a consumed stream can never be re-sent, whatever a predicate says.
    if (this.options.shouldRetry === undefined || isCancel(error) || isStream(config.data)) return decision;
    const response = (error as { response?: AxiosResponse } | null)?.response ?? undefined;
    const verdict = await this.ask(error as AxiosError, response, decision);
    if (verdict === true) return { retry: true, reason: decision.reason };
    if (verdict === false && decision.retry)
      return { retry: false, stopReason: 'not-retryable', reason: decision.reason };
    return decision;
  }

  /** Asks `shouldRetry`; `true` or `false` override the table, anything else keeps it. */
  private async ask(
    error: AxiosError | undefined,
    response: AxiosResponse | undefined,
    decision: RetryDecision,
  ): Promise<boolean | undefined> {
    const { config } = this;
    const ctx: RetryContext = {
      error,
      response: response === undefined ? undefined : this.asCallerSees(response),
      attempt: this.state.attempts,
      method: this.method,
      keyed: this.state.idempotencyKey !== undefined,
      deduped: this.call.deduped,
      decision,
      config,
    };
    let verdict: unknown;
    await this.runHook(() => {
      const answer: unknown = this.options.shouldRetry!(ctx);
      if (typeof (answer as PromiseLike<unknown> | undefined)?.then !== 'function') {
        verdict = answer;
        return undefined;
      }
      return Promise.resolve(answer).then((value) => void (verdict = value));
    }, undefined);
    return verdict === true || verdict === false ? verdict : undefined;
  }

  /**
   * The response as the caller would get it: axios parses bodies (`transformResponse`) only after
   * the adapter, and a predicate reading `{"status":"pending"}` needs the parsed body. A copy; a
   * transform that throws leaves the raw body.
   */
  private asCallerSees(response: AxiosResponse): AxiosResponse {
    const transforms = this.config.transformResponse;
    const list = Array.isArray(transforms) ? transforms : transforms === undefined ? [] : [transforms];
    let data: unknown = response.data;
    try {
      const headers = AxiosHeaders.from(response.headers as AxiosResponseHeaders);
      for (const transform of list) data = transform.call(this.config, data, headers, response.status);
    } catch {
      data = response.data;
    }
    return { ...response, data };
  }

  /** Plans the retry `decision` allows, waits, and sends it; throws the caller's outcome when it stops. */
  private async retryWith(decision: Decision): Promise<AxiosResponse> {
    const delayMs = await this.planRetry(this.retry++, decision);
    releaseBody(this.lastResponse === undefined ? this.lastError : { response: this.lastResponse });
    await this.pause(delayMs);
    // Other calls may have opened the breaker during the wait: the retry would fail anyway.
    if (this.breaker !== undefined && !this.probe && isRejecting(this.breaker)) {
      this.giveBackToken();
      this.circuitOpen();
    }
    return this.attempt();
  }

  /**
   * Decides whether the failure in `lastError` (or the response in `lastResponse`) is retried,
   * and after how long; throws the caller's outcome (with its stop reason) when it is not. `retry`
   * is 0 before the first retry.
   */
  private async planRetry(retry: number, decision: Decision): Promise<number> {
    const { options, state, shared, breaker, budget } = this;
    const failure = this.failure;

    const suspectedCors = this.corsSensitive && shared.cors.suspect(this.origin, failure);
    // A write that will not be repeated says why when the browser hid a likely CORS refusal.
    if (!decision.retry) {
      this.stop(
        suspectedCors && decision.stopReason === 'non-idempotent' ? 'cors-suspected' : decision.stopReason,
        failure,
      );
    }
    if (retry >= options.retries) this.stop('retries-exhausted', failure);
    // A suspected CORS refusal gets one retry (for a blip at first contact), not all of them.
    if (retry >= 1 && suspectedCors) {
      this.stop('cors-suspected', failure);
    }
    // A call that was in flight when the plugin closed must not start a wait close() cannot end.
    if (shared.closed) this.stop('aborted', failure);

    // The server's word beats our guess, within the cap. 0 or a past date means "now", and then
    // the jittered backoff still spreads the callers out.
    const headers = (this.lastResponse ?? (failure as { response?: { headers?: unknown } }).response)?.headers;
    const asked = parseRetryAfter(headerValue(headers, 'retry-after'), shared.now());
    let delayMs: number;
    let delaySource: 'backoff' | 'retry-after';
    if (asked !== undefined && asked > 0) {
      if (asked > options.maxDelayMs && options.retryAfter === 'fail') this.stop('retry-after-too-long', failure);
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

    if (options.deadlineMs !== undefined && shared.now() + delayMs - this.startedAt >= options.deadlineMs) {
      this.stop('deadline', failure);
    }
    // An open breaker will not let the retry out; waiting it out would only hold the caller. (The
    // half-open probe is the one call it lets through: its retries are part of it.)
    if (breaker !== undefined && !this.probe && isRejecting(breaker)) this.circuitOpen();
    // Last, so a retry refused for another reason does not spend a token.
    if (budget !== undefined) {
      if (!(await this.takeToken(budget))) this.stop('budget-exhausted', failure);
      this.holdsToken = true;
    }

    const onRetry = options.onRetry;
    if (onRetry) {
      const response = this.lastResponse;
      // A response that shouldRetry asked to retry has no error of its own: the event gets one that says so.
      const error =
        response === undefined
          ? (this.lastError as AxiosError)
          : new AxiosError(
              'shouldRetry asked to retry this response',
              'ERR_SHOULD_RETRY',
              this.config,
              response.request,
              response,
            );
      const event = {
        attempt: state.attempts,
        delayMs,
        delaySource,
        reason: decision.reason,
        error,
        config: this.config,
      };
      await this.runHook(() => onRetry(event), undefined);
    }
    state.delaysMs.push(delayMs);
    return delayMs;
  }

  /**
   * Runs a hook. Hooks observe and may change headers; they cannot replace the outcome: if one
   * throws, the call fails with its own last outcome (`hook-failed`); an abort, `plugin.close()` or
   * the deadline (`limitMs`) ends the call at once, whatever the hook is doing.
   */
  private async runHook(hook: () => unknown, limitMs: number | undefined): Promise<void> {
    const { config, shared } = this;
    let result: unknown;
    try {
      result = hook();
    } catch (hookError) {
      this.hookFailed(hookError);
    }
    if (typeof (result as PromiseLike<unknown> | undefined)?.then !== 'function') return;
    const ended = await interruptible(Promise.resolve(result), config, shared.closers, limitMs);
    if (ended.how === 'failed') this.hookFailed(ended.error);
    if (ended.how === 'deadline') {
      this.giveBackToken();
      this.stop('deadline', this.failure ?? this.deadlineError());
    }
    if (ended.how !== 'done') this.interrupted(ended.how);
  }

  /** Waits before the next attempt; ends early, and throws, on a cancel or the plugin closing. */
  private async pause(delayMs: number): Promise<void> {
    if (cancellation(this.config)) this.interrupted('aborted');
    // A hook may have awaited across a close().
    if (this.shared.closed) this.interrupted('closed');
    const ended = await interruptible(delayMs, this.config, this.shared.closers);
    if (ended.how === 'aborted' || ended.how === 'closed') this.interrupted(ended.how);
  }

  /** A cancel or close cut a wait or hook short: no retry is sent, the token goes back. */
  private interrupted(how: WaitEnd): never {
    this.giveBackToken();
    if (how === 'closed') this.stop('aborted', this.failure);
    this.stop('aborted', cancellation(this.config) ?? new CanceledError(undefined, undefined, this.config));
  }

  private hookFailed(hookError: unknown): never {
    this.giveBackToken();
    this.state.hookError = hookError;
    // The call fails: with its last error, or (nothing failed yet) with the hook's, given a config.
    this.stop('hook-failed', this.lastError ?? hookError);
  }

  /** One retry token; a shared budget answers with a promise, a local one at once. */
  private takeToken(budget: RetryBudgetLike): Promise<boolean> {
    return Promise.resolve(budget.tryWithdraw());
  }

  /** The error of a call whose deadline passed before anything failed (it ran out in a hook). */
  private deadlineError(): AxiosError {
    return new AxiosError(`deadline of ${this.options.deadlineMs} ms passed`, AxiosError.ETIMEDOUT, this.config);
  }

  private giveBackToken(): void {
    if (!this.holdsToken) return;
    this.holdsToken = false;
    this.budget?.refund();
  }

  /** What the last attempt ended in: the response being retried, or the error. */
  private get failure(): unknown {
    return this.lastResponse ?? this.lastError;
  }

  /** Ends the call with `error` (or, for a response `shouldRetry` wanted retried, resolves with it). */
  private stop(stopReason: StopReason, error: unknown): never {
    this.state.stopReason = stopReason;
    if (error !== undefined && error === this.lastResponse) throw new ResolveWith(this.lastResponse);
    // A custom adapter's bare failure carries no config: the caller gets an AxiosError with one
    // (the failure as its cause), so `error.config.retryState` and onGiveUp reach it too.
    const thrown =
      error !== null && typeof error === 'object' && 'config' in error
        ? error
        : AxiosError.from(error instanceof Error ? error : new Error(String(error)), undefined, this.config);
    this.failed(thrown);
    throw thrown;
  }

  private circuitOpen(): never {
    if (this.lastResponse !== undefined) this.stop('circuit-open', this.lastResponse);
    this.state.stopReason = 'circuit-open';
    const error = new CircuitOpenError(this.origin, this.config, this.lastError);
    this.failed(error);
    throw error;
  }
}

/** Thrown inside the loop when the guards stop the retry of a good response: the call resolves with it. */
class ResolveWith extends Error {
  constructor(readonly response: AxiosResponse) {
    super('resolve with the last response');
  }
}
