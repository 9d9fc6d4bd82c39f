import type { AxiosAdapter, AxiosError, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { readAnswer, type Answer, type Failure } from '../policy/answer';
import { readFailure } from '../policy/classify';
import { modelOf, routeOf } from '../policy/scope';
import { attachKey, callerKey, keysCall } from '../policy/idempotency';
import type { ResolvedOptions } from '../policy/options';
import { CircuitOpenError } from '../types/errors';
import { RetryToken } from '../guards/origin-budget';
import { BodyPlan } from './body';
import { BreakerGate } from './breaker-gate';
import type { Call, CallState } from './call';
import type { Shared } from './context';
import { Deadline } from './deadline';
import type { Pushback } from './pushback';
import type { Attempt } from './pipeline';
import type { Halt } from './stop';
import { destination, routeTo, type Route } from './route';

/**
 * A call as it reaches the adapter: what its first send needs, fixed then (`config`, `options`, the
 * caller's adapter...), but for its route, which follows the call to another origin. Most calls are
 * one attempt that succeeds (`run.ts`'s short way) and are never more than this.
 *
 * `Call` and `CallState` are not here: they belong to the logical call, which may reach the adapter
 * more than once (a config re-sent by hand), and `CallState` is the public `retryState`.
 */
export class CallStart {
  /** The caller's adapter (wrapped by fault injection when the call has `chaos`). */
  base: AxiosAdapter;
  readonly options: ResolvedOptions;
  /** The route's origin and whether it may refuse a browser's cross-origin call: read on every attempt, so kept as fields. */
  origin: string;
  corsSensitive: boolean;
  /** Ends pending waits and hooks when the plugin closes (the plugin's). */
  readonly closers: Set<() => void>;
  /** The call's endpoint (method and path, ids folded), read once it is asked for (`policy/scope.ts`). */
  endpointKey: string | undefined;

  constructor(
    readonly config: InternalAxiosRequestConfig,
    readonly call: Call,
    readonly state: CallState,
    base: AxiosAdapter,
    readonly shared: Shared,
    /** Upper-case method. */
    readonly method: string,
    /** Where the attempts go now, and the guards that count them there (`CallRun.follow` moves it). */
    public route: Route,
    /** When the call reached the adapter (the plugin's clock): its deadline runs from here, and a failure says how long it took. */
    readonly startedAt: number = shared.now(),
  ) {
    this.base = base;
    this.options = call.options;
    this.origin = route.origin;
    this.corsSensitive = route.corsSensitive;
    this.closers = shared.closers;
  }

  /** An attempt goes out: the call's first counts as one request for the budget. */
  sent(): void {
    if (this.state.attempts++ === 0) this.route.budget?.deposit();
  }

  /** `rateLimit.key(config)` where it goes now, when set: the call's one rate-limit scope. */
  get userKey(): string | undefined {
    return this.route.userKey;
  }

  /** The call's endpoint (its route), for a scope narrower than its origin. */
  readonly endpoint = (): string => (this.endpointKey ??= routeOf(this.method, this.config));

  /** The model the call's JSON body names, for a scope per model. */
  model(): string | undefined {
    return modelOf(this.config.data);
  }
}

/**
 * A call the attempt loop runs (it failed once, or needs more than a send: hooks, a deadline,
 * hedging, a body to keep), built complete from its start: its deadline, its passage through the
 * breaker, its retry token and its body's plan; and what the loop remembers between attempts: the
 * last attempt, the backoff's memory, what the last answer said of the rate limit (`pushback`).
 */
export class CallRun extends CallStart {
  readonly deadline: Deadline;
  /** The call's passage through the breaker of its route (or of the origin a redirect ended at). */
  gate: BreakerGate;
  readonly token: RetryToken;
  readonly body: BodyPlan;

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
  /** What the last answer said of the scope's rate limit (`rate-gate.ts`'s `observe`). */
  pushback: Pushback = { throttled: false, quotaWaitMs: undefined };
  /** The last answer, read once (`read`): the judge, the plan, the gate and the breaker read it. */
  answer: Answer | undefined;
  /** The attempt `answer` was read from. */
  private answered: Attempt | undefined;
  /** The rate-limit scope the attempt in flight was paced under, if it was (`rate-gate.ts`). */
  sentKey: string | undefined;
  /** When the retry now pending was decided (its wait in `delaysMs` runs from here). */
  decidedAt = 0;

  /** `counted`: the call began under a closed breaker, its first attempt sent before the loop took it. */
  constructor(start: CallStart, counted: boolean) {
    super(start.config, start.call, start.state, start.base, start.shared, start.method, start.route, start.startedAt);
    const { config, options, shared } = this;
    this.endpointKey = start.endpointKey;
    this.previousDelayMs = options.baseDelayMs;
    this.deadline = new Deadline(options.deadlineMs, this.startedAt, shared.now);
    this.gate = this.gateFor(this.route, counted);
    this.token = new RetryToken(this.route.budget);
    this.body = new BodyPlan(config, options.replayMaxBytes, options.body);
    // A caller's own key on a method the plugin does not key (a GET, a PUT) matters only now that
    // the call may be retried (a 409 is retried for a keyed call); it is the caller's, so deduped.
    // (A call the plugin keyed, `startRun`, has its key already, or has none to find.)
    if (this.state.idempotencyKey === undefined) {
      const key = callerKey(config.headers, options);
      if (key !== undefined) {
        this.state.idempotencyKey = key;
        this.call.deduped = true;
      }
    }
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
    this.accountedAt = undefined;
    this.gate = this.gateFor(route, false);
    if (!(await this.token.moveTo(route.budget))) return { how: 'budget' };
    return this.gate.enter() ? undefined : { how: 'breaker' };
  }

  /** The call's passage through `route`'s breaker; `counted`: its first attempt was counted there already. */
  gateFor(route: Route, counted: boolean): BreakerGate {
    return new BreakerGate(
      route.guard,
      this.shared.breakers,
      route.breakerKey,
      (error) => this.isDownstreamFailure(error),
      // A `breaker.key` of the caller's is the call's one breaker: no route of its own.
      this.shared.breakerKey === undefined ? this.endpoint : undefined,
      counted,
    );
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

  /** Reads an attempt's answer, once (`policy/answer.ts`), at the plugin's clock. */
  read(attempt: Attempt): Answer {
    this.answered = attempt;
    const failure = attempt.response === undefined ? readFailure(attempt.error, this.options) : undefined;
    return (this.answer = readAnswer(attempt, this.shared.now(), this.shared.dialects, failure));
  }

  /** Whether a failure (an attempt's, or the call's final one) is the downstream's fault (a retryable status or a transport failure). */
  private isDownstreamFailure(error: unknown): boolean {
    const failure = error instanceof CircuitOpenError ? error.cause : error;
    // A 429 says the server is healthy and protecting itself: the rate limiter answers it, not the breaker.
    if ((failure as { response?: { status?: unknown } } | undefined)?.response?.status === 429) return false;
    // A suspected CORS refusal says nothing about the origin's health.
    if (this.corsSensitive && this.shared.cors.suspect(this.origin, failure)) return false;
    const { kind } = this.failureOf(failure);
    return kind === 'status' || kind === 'network';
  }

  /** `error` read as a failure: the last answer's reading when it is that attempt's error (most often), else afresh. */
  private failureOf(error: unknown): Failure {
    const read = this.answer?.failure;
    return read !== undefined && error === this.answered?.error ? read : readFailure(error, this.options);
  }
}

/** axios lower-cases the method; the decision table and the key settings speak upper case. */
const UPPER = new Map(['get', 'post', 'put', 'patch', 'delete', 'head', 'options'].map((m) => [m, m.toUpperCase()]));

/** Whether `origin`'s server is declared to dedupe the keys the plugin generates. */
function dedupedAt(options: ResolvedOptions, origin: string): boolean {
  return options.idempotencyKey !== false && options.idempotencyKey.serverDedupes(origin);
}

/**
 * Makes the call's state when it reaches the adapter (`CallStart`): fixes its origin, its
 * budget and breaker, and attaches its Idempotency-Key, here, once per logical call, after every
 * request interceptor. Throws for a key from a user's generator that is no valid header value, or a
 * `breaker.key()` that throws.
 */
export function startRun(
  config: InternalAxiosRequestConfig,
  call: Call,
  state: CallState,
  base: AxiosAdapter,
  shared: Shared,
): CallStart {
  const options = call.options;
  const lower = config.method ?? 'get';
  const method = UPPER.get(lower) ?? lower.toUpperCase();
  const origin = destination(config);
  // A call the plugin does not key (a GET) is looked at for a key of the caller's only if it fails.
  if (keysCall(method, options, call.staleKey)) {
    const key = attachKey(config.headers, method, options, call.staleKey);
    if (key !== undefined) {
      // The plugin's own key on a config re-sent after a failure is still the plugin's.
      const generated = key.generated || key.key === call.ownKey;
      state.idempotencyKey = key.key;
      if (generated) call.generatedKey = key.key;
      call.deduped = !generated || dedupedAt(options, origin);
    }
  }
  let endpoint: string | undefined;
  const endpointOf = (): string => (endpoint ??= routeOf(method, config));
  const route = routeTo(origin, config, shared, state, options, endpointOf);
  return new CallStart(config, call, state, base, shared, method, route);
}
