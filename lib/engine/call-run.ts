import type { AxiosAdapter, AxiosError, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import type { Answer } from '../policy/answer';
import { readFailure } from '../policy/classify';
import { modelOf, routeOf } from '../policy/scope';
import { callerKey } from '../policy/idempotency';
import type { ResolvedOptions } from '../policy/options';
import { RetryToken } from '../guards/local-budget';
import type { Sending } from '../guards/bare-refusals';
import { CircuitOpenError } from '../types/errors';
import { BodyPlan } from './body';
import type { BreakerGate } from './breaker-gate';
import type { Call, CallState } from './call';
import type { Shared } from './context';
import { Deadline } from './hooks';
import type { Pushback } from './plan';
import type { Attempt } from './pipeline';
import type { Halt } from './stop';
import { destination, gateFor, routeTo, type Route } from './route';

/**
 * One call as it reaches the adapter, from its first send to its end: made complete there
 * (`plugin/adapter.ts`: its key, its adapter, fault injection included; its route here), the one
 * value every step of the call is handed. Most calls are one attempt that succeeds (the adapter's
 * short way) and need nothing more; a call the attempt loop takes gets what its retries need
 * (`retrying`): its deadline, its passage through the breaker, its retry token and its body's plan,
 * and what the loop remembers between attempts.
 *
 * `Call` and `CallState` are not here: they belong to the logical call, which may reach the adapter
 * more than once (a config re-sent by hand), and `CallState` is the public `retryState`.
 */
export class CallRun {
  readonly options: ResolvedOptions;
  /** Where the attempts go now, and the guards that count them there (`follow` moves it). */
  route: Route;
  /**
   * The route's origin, whether it may refuse a browser's cross-origin call, and `rateLimit.key(config)`
   * there when set (the call's one rate-limit scope): read on every attempt, so kept as fields.
   */
  origin: string;
  corsSensitive: boolean;
  userKey: string | undefined;
  /** The call's endpoint (method and path, ids folded), read once it is asked for (`policy/scope.ts`). */
  private endpointKey: string | undefined;

  // What the attempt loop needs, made by `retrying` (`declare`: a call that succeeds at once never has them).
  /** The call's deadline, when it has one (`deadlineMs`). */
  declare deadline: Deadline | undefined;
  /** The call's passage through the breaker of its route (or of the origin a redirect ended at). */
  declare gate: BreakerGate;
  /** The retry token: none while a first attempt is sent before the loop takes the call. */
  token: RetryToken | undefined;
  declare body: BodyPlan;
  /** What the last answer said of the rate limit (`rate-gate.ts`'s `observe`). */
  declare pushback: Pushback;

  // What the loop remembers between attempts.
  /** The origin a followed redirect ended at, when the call is accounted there (`engine/redirects.ts`). */
  accountedAt: string | undefined;
  /** The attempt being retried: a failure, or a response `shouldRetry` asked to retry. */
  last: Attempt | undefined;
  /** Retries planned so far (0 before the first). */
  retries = 0;
  /** `shouldRetry` retried a failure the decision table would not have (`judge.ts`). */
  overruledTable = false;
  /** The wait before the last retry (decorrelated jitter grows from it); the base before the first. */
  previousDelayMs: number;
  /** When the attempt in flight left, if the limiter paced it (else never: `-Infinity`). */
  sentAt = -Infinity;
  /** The last answer, read once (`loop.ts`): the judge, the plan, the gate and the breaker read it. */
  answer: Answer | undefined;
  /** The attempt `answer` was read from. */
  answered: Attempt | undefined;
  /** The rate-limit scope the attempt in flight was paced under, if it was (`rate-gate.ts`). */
  sentKey: string | undefined;
  /** The attempt in flight, counted at its origin while bare refusals are weighed there (`guards/bare-refusals.ts`). */
  sending: Sending | undefined;
  /** When the retry now pending was decided (its wait in `delaysMs` runs from here). */
  decidedAt = 0;

  constructor(
    readonly config: InternalAxiosRequestConfig,
    readonly call: Call,
    readonly state: CallState,
    /** The caller's adapter (wrapped by fault injection when the call has `chaos`). */
    readonly base: AxiosAdapter,
    readonly shared: Shared,
    /** Upper-case method. */
    readonly method: string,
    /** The origin it is sent to; its route there is made here (throws when `breaker.key()` or `rateLimit.key()` does). */
    origin: string,
    /** When the call reached the adapter (the plugin's clock): its deadline runs from here, and a failure says how long it took. */
    readonly startedAt: number = shared.now(),
  ) {
    const options = (this.options = call.options);
    this.route = routeTo(origin, config, shared, state, options, this.endpoint);
    this.origin = origin;
    this.corsSensitive = this.route.corsSensitive;
    this.userKey = this.route.userKey;
    this.previousDelayMs = options.baseDelayMs;
  }

  /**
   * The attempt loop takes the call (it failed once, or needs more than a send: hooks, a deadline,
   * hedging, a body to keep). `counted`: it began under a closed breaker, its first attempt sent
   * before the loop took it.
   */
  retrying(counted: boolean): this {
    const { config, options, shared } = this;
    const { deadlineMs } = options;
    this.deadline = deadlineMs === undefined ? undefined : new Deadline(deadlineMs, this.startedAt, shared.now);
    this.gate = gateFor(this, this.route, counted);
    this.token = new RetryToken(this.route.budget);
    this.body = new BodyPlan(config, options.replayMaxBytes, options.body);
    this.pushback = { throttled: false, absorbed: false, quotaWaitMs: undefined };
    // A caller's own key on a method the plugin does not key (a GET, a PUT) matters only now that
    // the call may be retried (a 409 is retried for a keyed call); it is the caller's, so deduped.
    // (A call the plugin keyed, `plugin/adapter.ts`, has its key already, or has none to find.)
    if (this.state.idempotencyKey === undefined) {
      const key = callerKey(config.headers, options);
      if (key !== undefined) {
        this.state.idempotencyKey = key;
        this.call.deduped = true;
      }
    }
    return this;
  }

  /**
   * Sends an attempt over the caller's adapter (or `over` it: a race of hedged copies), counted: the
   * call's first as one request for the budget, the retry token spent, its number on its header. The
   * chain's last link (`pipeline.ts`), and all of a first attempt that needs nothing else (the
   * adapter's short way). A custom adapter may hand back a thenable, or throw instead of rejecting.
   */
  dispatch(config: InternalAxiosRequestConfig, over: AxiosAdapter = this.base): Promise<AxiosResponse> {
    const { state, options } = this;
    if (state.attempts++ === 0) this.route.budget?.deposit();
    this.token?.spend();
    const limiters = this.shared.limiters;
    if (limiters !== undefined && limiters.weighing > 0) this.sending = limiters.sending(this.origin);
    if (options.attemptHeader !== false) this.config.headers.set(options.attemptHeader, String(state.attempts));
    try {
      return Promise.resolve(over(config));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The call's endpoint (its route), for a scope narrower than its origin. */
  readonly endpoint = (): string => (this.endpointKey ??= routeOf(this.method, this.config));

  /** The model the call's JSON body names, for a scope per model. */
  model(): string | undefined {
    return modelOf(this.config.data);
  }

  /**
   * Follows a hook that sent the call to another origin (changed `config.url` or `baseURL`), before
   * an attempt: the origin it leaves counts the call as ended there (its breaker, with the last
   * failure), and the new origin's guards take it on: the retry's token comes from its budget, and
   * its breaker must be closed (a call moved to an origin whose breaker is open, or half-open with
   * its probe out, is refused by it). Throws when `breaker.key()` does.
   */
  async follow(): Promise<Halt | undefined> {
    const origin = destination(this.config);
    if (origin === this.route.origin) return undefined;
    const route = routeTo(origin, this.config, this.shared, this.state, this.options, this.endpoint);
    this.gate.left(this.lastError ?? this.failure);
    this.route = route;
    this.origin = route.origin;
    this.corsSensitive = route.corsSensitive;
    this.userKey = route.userKey;
    this.accountedAt = undefined;
    this.gate = gateFor(this, route, false);
    if (!(await this.token!.moveTo(route.budget))) return { how: 'budget' };
    return this.gate.enter() ? undefined : { how: 'breaker' };
  }

  /** What the last attempt ended in: the response being retried, or the error. */
  get failure(): unknown {
    return this.last?.response ?? this.last?.error;
  }

  /** The last attempt's error, when it failed (not a response `shouldRetry` wanted retried). */
  get lastError(): AxiosError | undefined {
    return this.last?.error as AxiosError | undefined;
  }

  /** A response `shouldRetry` asked to retry, while it is the attempt being retried. */
  get lastResponse(): AxiosResponse | undefined {
    return this.last?.response;
  }

  /**
   * Whether a failure of the call (an attempt's, or its final one) is the downstream's fault (a
   * retryable status or a transport failure), read as the last answer read it when it is that
   * attempt's error (most often), else afresh. The breaker's test (`breaker-gate.ts`).
   */
  readonly isDownstreamFailure = (error: unknown): boolean => {
    const failure = error instanceof CircuitOpenError ? error.cause : error;
    // A 429 says the server is healthy and protecting itself: the rate limiter answers it, not the breaker.
    if ((failure as { response?: { status?: unknown } } | undefined)?.response?.status === 429) return false;
    // A suspected CORS refusal says nothing about the origin's health.
    if (this.corsSensitive && this.shared.cors.suspect(this.origin, failure)) return false;
    const read = this.answer?.failure;
    const { kind } = read !== undefined && failure === this.answered?.error ? read : readFailure(failure, this.options);
    return kind === 'status' || kind === 'network';
  };
}
