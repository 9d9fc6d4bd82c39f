import { AxiosHeaders } from 'axios';
import type { AxiosError, AxiosResponse, AxiosResponseHeaders } from 'axios';
import { classify, overruled, readFailure, retryResponse, serverSays } from '../policy/classify';
import type { Answer } from '../policy/answer';
import type { Decision } from '../policy/classify';
import { resolveCallOptions } from '../policy/options';
import type { RetryContext, RetryDecision } from '../types';
import { CallState } from './call';
import type { CallRun } from './call-run';
import type { Attempt } from './pipeline';
import { runHook } from './hooks';
import type { Halt } from './stop';

/**
 * Judging one attempt: the decision table over a failure, the server's say and `shouldRetry` over
 * the table (`policy/classify.ts` owns each of those rules), and `shouldRetryResponse` over a
 * resolved response. The guards come after, in the plan.
 */

/** The attempt's verdict: the call's answer, a decision to plan a retry by, or what ended the call. */
export type Verdict = { accept: AxiosResponse } | { decision: Decision } | { halt: Halt };

export async function judge(run: CallRun, attempt: Attempt, answer: Answer): Promise<Verdict> {
  const { options } = run;
  // What the write rule needs of the call (`mayRepeat`).
  const facts = { method: run.method, deduped: run.call.deduped, unsafe: options.unsafeRetryWrites, keyed: false };
  if (attempt.response !== undefined) {
    const response = attempt.response;
    if (run.corsSensitive) run.shared.cors.answer(run.origin);
    const predicate = options.shouldRetryResponse;
    if (predicate === undefined) return { accept: response };
    run.last = undefined;
    const asked = await ask(run, predicate, undefined, response, { retry: false, reason: 'success' });
    if ('halt' in asked) return asked;
    if (asked.verdict !== true) return { accept: response };
    run.last = attempt;
    return { decision: retryResponse(facts, answer.says === true) };
  }
  const error = attempt.error;
  run.last = attempt;
  const response = (error as { response?: AxiosResponse | null } | null)?.response ?? undefined;
  if (run.corsSensitive && response !== undefined) run.shared.cors.answer(run.origin);
  // The deadline ended this attempt: its timeout was the time the deadline left.
  if (run.deadline?.endedAttempt(error) === true) return { halt: { how: 'expired' } };
  facts.keyed = run.state.idempotencyKey !== undefined;
  const failure = answer.failure ?? readFailure(error, options);
  const decision = serverSays(classify(facts, failure), answer);
  // A cancel is never retried, whatever a predicate says (a body that cannot be sent again is the plan's).
  if (options.shouldRetry === undefined || failure.kind === 'cancel') return { decision };
  const unprocessed = failure.unprocessed || answer.says === true;
  // No retry left: not asked (as axios-retry and retry-axios do; a predicate that logs or counts runs
  // once per retry). A call it kept going against the table stops as before, out of retries.
  if (run.retries >= options.retries) {
    return { decision: run.overruledTable ? overruled(decision, true, facts, unprocessed) : decision };
  }
  const asked = await ask(run, options.shouldRetry, error as AxiosError, response, decision);
  if ('halt' in asked) return asked;
  const judged = overruled(decision, asked.verdict, facts, unprocessed);
  if (judged.retry && !decision.retry) run.overruledTable = true;
  return { decision: judged };
}

/** Asks `shouldRetry`; `true` or `false` override the table, anything else keeps it. */
async function ask(
  run: CallRun,
  predicate: (ctx: RetryContext) => unknown,
  error: AxiosError | undefined,
  response: AxiosResponse | undefined,
  decision: RetryDecision,
): Promise<{ verdict: boolean | undefined } | { halt: Halt }> {
  const ctx: RetryContext = {
    error,
    response: response === undefined ? undefined : asCallerSees(run, response),
    attempt: run.state.attempts,
    method: run.method,
    keyed: run.state.idempotencyKey !== undefined,
    deduped: run.call.deduped,
    decision,
    config: run.config,
  };
  const ended = await runHook(() => predicate(ctx), run);
  if (ended.how !== 'done') return { halt: ended };
  return { verdict: ended.value === true || ended.value === false ? ended.value : undefined };
}

/**
 * The response as the caller would get it: axios parses bodies (`transformResponse`) only after
 * the adapter, and a predicate reading `{"status":"pending"}` needs the parsed body. A copy; a
 * transform that throws leaves the raw body.
 */
function asCallerSees(run: CallRun, response: AxiosResponse): AxiosResponse {
  const transforms = run.config.transformResponse;
  const list = Array.isArray(transforms) ? transforms : transforms === undefined ? [] : [transforms];
  let data: unknown = response.data;
  try {
    const headers = AxiosHeaders.from(response.headers as AxiosResponseHeaders);
    for (const transform of list) data = transform.call(run.config, data, headers, response.status);
  } catch {
    data = response.data;
  }
  return { ...response, data };
}

/** Options of `isRetryableFailure`; everything is optional. */
export interface RetryableFailureOptions {
  /** @default [408, 429, 502, 503, 504, 529] */
  statusCodes?: readonly number[];
  /** @default the plugin's default network codes */
  errorCodes?: readonly string[];
  /** @default the failed request's method (`error.config.method`), else `'GET'` */
  method?: string;
  /** Whether the call carries an Idempotency-Key. @default whether `error.config` has that header */
  keyed?: boolean;
  /**
   * Whether the server dedupes that key (the caller set it, or `serverDedupes` says so).
   * @default `keyed` when given; else the plugin's own verdict for a call it handled
   * (`error.config.retryState`); else whether `error.config` has the header
   */
  deduped?: boolean;
}

/**
 * What the decision table would decide for `error`, and why — the table as a function, to build
 * your own `shouldRetry` from: `({ error }) => isRetryableFailure(error).retry || myRule(error)`.
 * Guards (retries, budget, breaker, deadline) are not consulted: this is the table alone.
 */
export function isRetryableFailure(error: unknown, options: RetryableFailureOptions = {}): RetryDecision {
  const { method, keyed, deduped, ...lists } = options;
  const resolved = resolveCallOptions(lists as Record<string, unknown>, undefined, 'isRetryableFailure: ');
  const config = (
    error as { config?: { method?: unknown; headers?: unknown; data?: unknown; retryState?: unknown } } | null
  )?.config;
  const requestMethod = (method ?? (typeof config?.method === 'string' ? config.method : 'get')).toUpperCase();
  const hasKey = keyed ?? AxiosHeaders.from((config?.headers ?? {}) as AxiosHeaders).has('idempotency-key');
  // `keyed: true` alone keeps its 0.3 meaning: the caller vouches for the key.
  const verdict = deduped ?? keyed ?? CallState.callOf(config?.retryState)?.deduped ?? hasKey;
  const decision = classify({ method: requestMethod, keyed: hasKey, deduped: verdict }, readFailure(error, resolved));
  return decision.retry ? decision : { retry: false, reason: decision.reason, stopReason: decision.stopReason };
}
