import type { AxiosAdapter, AxiosError, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { failureKind } from '../policy/classify';
import { callerKey, keysCall } from '../policy/idempotency';
import type { ResolvedOptions } from '../policy/options';
import { CircuitOpenError } from '../types/errors';
import type { RetryBudgetLike } from '../types';
import { RetryToken } from './admission';
import { BodyPlan } from './body';
import { BreakerGate } from './breaker-gate';
import type { Call, CallState } from './call';
import type { CallContext, Shared } from './context';
import { Deadline } from './deadline';
import { destination, routeTo } from './route';
import type { Route } from './route';

/** What one attempt ended in: the response axios's adapter resolved with, or the failure. */
export type Attempt = { response: AxiosResponse; error?: undefined } | { error: unknown; response?: undefined };

/** Why a call could not follow a hook to another origin. */
export type MoveRefused = 'budget-exhausted' | 'circuit-open';

/**
 * One call on its way through the attempt loop: what it works with (fixed when it reached the
 * adapter, but for its route, which follows the call to another origin) and the little it remembers
 * between attempts. Each rule's state has its owner: the deadline, the breaker gate, the retry
 * token; the loop itself keeps only the last attempt and the backoff's memory.
 */
export class CallRun {
  readonly config: InternalAxiosRequestConfig;
  readonly call: Call;
  readonly state: CallState;
  readonly base: AxiosAdapter;
  readonly shared: Shared;
  /** Ends the call's waits and hooks when the plugin closes (with `config`, what a hook is raced against). */
  readonly closers: Set<() => void>;
  readonly options: ResolvedOptions;
  /** Upper-case method. */
  readonly method: string;
  /** Where the attempts go now, and the guards that count them there. */
  route: Route;
  readonly deadline: Deadline;
  /** The call's passage through the breaker of its route (or of the origin a redirect ended at). */
  gate: BreakerGate;
  /** The origin a followed redirect ended at, when the call is accounted there (`answeredAt`). */
  private accountedAt: string | undefined;
  readonly token: RetryToken;
  readonly body: BodyPlan;
  /** The attempt being retried: a failure, or a response `shouldRetry` asked to retry. */
  last: Attempt | undefined;
  /** Retries planned so far (0 before the first). */
  retries = 0;
  /** The wait before the last retry (decorrelated jitter grows from it); the base before the first. */
  previousDelayMs: number;
  /** When the attempt in flight left, if the limiter paced it (else never: `-Infinity`). */
  sentAt = -Infinity;
  /** The last attempt was throttled (429, 503 with a server wait, a spent quota): its retry waits its turn. */
  throttled = false;
  /** The last attempt was throttled with its quota spent: when the quota frees a request (ms from then). */
  quotaWaitMs: number | undefined;
  /** When the retry now pending was decided (its wait in `delaysMs` runs from here). */
  decidedAt = 0;

  /** `counted`: the call began under a closed breaker, its first attempt sent before it got here. */
  constructor(context: CallContext, counted = false) {
    this.config = context.config;
    this.call = context.call;
    this.state = context.state;
    this.base = context.base;
    this.shared = context.shared;
    this.closers = context.shared.closers;
    this.options = context.options;
    this.method = context.method;
    this.route = context.route;
    this.deadline = new Deadline(context.options.deadlineMs, context.startedAt, context.shared.now);
    this.gate = this.gateFor(context.route, counted);
    this.token = new RetryToken(context.route.budget);
    this.body = new BodyPlan(context.config, context.options.replayMaxBytes, context.options.body);
    this.previousDelayMs = context.options.baseDelayMs;
    // A caller's own key on a method the plugin does not key (a GET, a PUT) matters only now that
    // the call may be retried (a 409 is retried for a keyed call); it is the caller's, so deduped.
    if (!keysCall(this.method, this.options, this.call.staleKey)) {
      const key = callerKey(this.config.headers, this.options);
      if (key !== undefined) {
        this.state.idempotencyKey = key;
        this.call.deduped = true;
      }
    }
  }

  get origin(): string {
    return this.route.origin;
  }

  get budget(): RetryBudgetLike | undefined {
    return this.route.budget;
  }

  get corsSensitive(): boolean {
    return this.route.corsSensitive;
  }

  /** The key of the rate limiter the call counts against where it goes now: it follows a failover. */
  get limiterKey(): string {
    return this.route.limiterKey;
  }

  /**
   * Follows a hook that sent the call to another origin (changed `config.url` or `baseURL`), before
   * an attempt: the origin it leaves counts the call as ended there (its breaker, with the last
   * failure), and the new origin's guards take it on: the retry's token comes from its budget, and
   * its breaker must be closed (a call moved to an origin whose breaker is open, or half-open with
   * its probe out, stops with `circuit-open`). Throws when `breaker.key()` does.
   */
  async follow(): Promise<MoveRefused | undefined> {
    const origin = destination(this.config);
    if (origin === this.route.origin) return undefined;
    const route = routeTo(origin, this.config, this.shared, this.state, this.options);
    this.gate.left(this.lastError ?? this.failure);
    this.route = route;
    this.accountedAt = undefined;
    this.gate = this.gateFor(route, false);
    if (!(await this.token.moveTo(route.budget))) return 'budget-exhausted';
    return this.gate.enter() ? undefined : 'circuit-open';
  }

  /**
   * An attempt was answered by another origin than it was sent to (a redirect the adapter
   * followed, `answered-by.ts`): from now on the call is accounted there — its outcome to that
   * origin's breaker, its retries to that origin's budget. The origin that redirected counts nothing:
   * it answered. Retries are still sent where the config says (and redirected again).
   */
  answeredAt(origin: string): void {
    if (origin === (this.accountedAt ?? this.route.origin)) return;
    let route: Route;
    try {
      route = routeTo(origin, this.config, this.shared, this.state, this.options);
    } catch {
      // breaker.key() threw for the origin that answered: the call stays accounted where it was sent.
      return;
    }
    this.accountedAt = origin;
    this.gate.left(undefined);
    this.gate = this.gateFor(route, true);
    void this.token.moveTo(route.budget);
  }

  private gateFor(route: Route, counted: boolean): BreakerGate {
    return new BreakerGate(
      route.guard,
      this.shared.breakers,
      route.breakerKey,
      (error) => this.isDownstreamFailure(error),
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

  /** Whether a call's final failure is the downstream's fault (a retryable status or a transport failure). */
  private isDownstreamFailure(error: unknown): boolean {
    const failure = error instanceof CircuitOpenError ? error.cause : error;
    // A 429 says the server is healthy and protecting itself: the rate limiter answers it, not the breaker.
    if ((failure as { response?: { status?: unknown } } | undefined)?.response?.status === 429) return false;
    // A suspected CORS refusal says nothing about the origin's health.
    if (this.corsSensitive && this.shared.cors.suspect(this.origin, failure)) return false;
    const kind = failureKind(failure, this.options);
    return kind === 'status' || kind === 'network';
  }
}
