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

/** What one attempt ended in: the response axios's adapter resolved with, or the failure. */
export type Attempt = { response: AxiosResponse; error?: undefined } | { error: unknown; response?: undefined };

/**
 * One call on its way through the attempt loop: what it works with (fixed when it reached the
 * adapter) and the little it remembers between attempts. Each rule's state has its owner: the
 * deadline, the breaker gate, the retry token; the loop itself keeps only the last attempt and
 * the backoff's memory.
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
  readonly origin: string;
  readonly budget: RetryBudgetLike | undefined;
  readonly corsSensitive: boolean;
  readonly deadline: Deadline;
  readonly gate: BreakerGate;
  readonly token: RetryToken;
  readonly body: BodyPlan;
  /** The attempt being retried: a failure, or a response `shouldRetry` asked to retry. */
  last: Attempt | undefined;
  /** Retries planned so far (0 before the first). */
  retries = 0;
  /** The wait before the last retry (decorrelated jitter grows from it); the base before the first. */
  previousDelayMs: number;
  /** The key of the origin's rate limiter (the breaker's key). */
  readonly limiterKey: string;
  /** When the attempt in flight left, if the limiter paced it (else never: `-Infinity`). */
  sentAt = -Infinity;
  /** The last attempt was throttled (429, 503 with a server wait, a spent quota): its retry waits its turn. */
  throttled = false;

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
    this.origin = context.origin;
    this.budget = context.budget;
    this.corsSensitive = context.corsSensitive;
    this.deadline = new Deadline(context.options.deadlineMs, context.startedAt, context.shared.now);
    this.gate = new BreakerGate(
      context.guard,
      context.shared.breakers,
      context.breakerKey,
      (error) => this.isDownstreamFailure(error),
      counted,
    );
    this.token = new RetryToken(context.budget);
    this.body = new BodyPlan(context.config, context.options.replayMaxBytes, context.options.body);
    this.previousDelayMs = context.options.baseDelayMs;
    this.limiterKey = context.breakerKey;
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
