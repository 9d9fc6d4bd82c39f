import { isCancel } from 'axios';
import type { ResolvedOptions } from './options';
import type { StopReason } from '../types';
import type { Answer, Failure } from './answer';

/**
 * The decision table: given one failed attempt, retry or stop, and why. Every rule lives here.
 *
 * A write (POST, PATCH) is *deduped* when the caller set its key (the header, or a pinned
 * `retry.idempotencyKey`: a caller picks a key because the server uses it) or when its server is
 * declared to dedupe (`idempotencyKey.serverDedupes`). A generated key on a server not declared
 * counts as no key: the server may ignore the header, and a repeat would then do the work twice.
 *
 * | failure                                   | GET, HEAD, OPTIONS, PUT, DELETE, TRACE | POST, PATCH deduped | POST, PATCH not declared |
 * |-------------------------------------------|-----------------------------------------|---------------------|--------------------------|
 * | 408, 429 (in `statusCodes` by default)    | retry                                   | retry               | retry (not processed)    |
 * | other status in `statusCodes` (502 503 504) | retry                                 | retry               | stop: non-idempotent     |
 * | 409                                       | retry if the call carries a key         | retry               | stop: non-idempotent with a key, else not-retryable |
 * | other status (400 401 403 404 422 500 …)  | stop: not-retryable                     | stop: not-retryable | stop: not-retryable      |
 * | ECONNREFUSED, ENOTFOUND, EAI_AGAIN        | retry                                   | retry               | retry (never sent)       |
 * | other code in `errorCodes`                | retry                                   | retry               | stop: non-idempotent     |
 * | no response and no code (unknown failure) | retry                                   | retry               | stop: non-idempotent     |
 * | response cut off mid-body                 | retry                                   | retry               | stop: non-idempotent     |
 * | cancelled                                 | stop: aborted                           | stop: aborted       | stop: aborted            |
 */

/** Methods whose repetition leaves the server as one request would (RFC 9110 §9.2.2). */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);

/**
 * Statuses that say the server did not process the request, so a retry is safe for any method:
 * 408, it closed before it had the whole request (RFC 9110 §15.5.9); 429, it refused the request
 * for its rate (RFC 6585 §4).
 */
const NOT_PROCESSED_STATUSES = new Set([408, 429]);

/** Failures that prove the request never reached the server, so a retry is safe for any method. */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** Whether sending the request twice is safe: an idempotent method, or a write whose key the server dedupes. */
export function safeToRepeat(method: string, deduped: boolean): boolean {
  return mayRepeat({ method, deduped }, false);
}

/**
 * The write rule, which no predicate, hook or server hint but the server's own `x-should-retry: true`
 * overrides: an attempt may be sent again only if that is safe (an idempotent method, or a write
 * whose key the server dedupes), or the server never processed it (a 408 or 429, a connection
 * refused, a name that did not resolve), or the caller opted into `unsafeRetryWrites`. A response
 * the adapter resolved (a 2xx) was processed.
 */
export function mayRepeat(facts: Pick<AttemptFacts, 'method' | 'deduped' | 'unsafe'>, unprocessed: boolean): boolean {
  return unprocessed || facts.unsafe === true || facts.deduped || IDEMPOTENT_METHODS.has(facts.method);
}

export type Decision =
  | { retry: true; reason: string }
  | { retry: false; stopReason: Extract<StopReason, 'not-retryable' | 'non-idempotent' | 'aborted'>; reason: string };

interface FailureLike {
  code?: unknown;
  cause?: unknown;
  response?: { status?: unknown };
  config?: { validateStatus?: ((status: number) => boolean) | null };
}

/**
 * Whether `value` is an `Error` (of any class), from this realm or another: a socket's error made
 * outside a test runner's sandbox is one too, while a plain object with a `message` is not.
 */
export function isError(value: unknown): value is Error {
  return value instanceof Error || Object.prototype.toString.call(value) === '[object Error]';
}

function asFailure(error: unknown): FailureLike | undefined {
  return error !== null && typeof error === 'object' ? (error as FailureLike) : undefined;
}

/**
 * The most specific network code of an error: axios's own code, else one found on its cause chain
 * (the fetch adapter reports `ERR_NETWORK` with the socket's `ECONNREFUSED` two causes down).
 */
export function networkCode(error: unknown, errorCodes: ReadonlySet<string>): string | undefined {
  let found: string | undefined;
  let current = asFailure(error);
  for (let depth = 0; current && depth < 4; depth++) {
    // `errorCodes` holds upper case; an adapter may write its code in any case.
    const code = typeof current.code === 'string' ? current.code.toUpperCase() : undefined;
    if (code !== undefined && errorCodes.has(code)) {
      // Prefer a code that says more than the generic fetch "Network Error".
      if (found === undefined || found === 'ERR_NETWORK') found = code;
      if (NEVER_SENT_CODES.has(code)) return code;
    }
    current = asFailure(current.cause);
  }
  return found;
}

/**
 * A transport failure with no code in `errorCodes`, as the reason text: a response cut off
 * mid-body, or — no response, no code, not a cancel — an unknown failure below axios (a mock
 * adapter's network error, a custom adapter's bare `Error`). `undefined`: not a transport failure
 * (a code the user did not list, such as a TLS or decompression error; a rejection that is no
 * `Error` at all, such as `{ message: 'network error' }`, which says nothing of the network).
 */
function transportWithoutCode(error: unknown): string | undefined {
  const failure = asFailure(error);
  const raw = failure?.code;
  if (failure?.response !== undefined && failure.response !== null) {
    return raw === 'ERR_BAD_RESPONSE' ? 'response cut off' : undefined;
  }
  if (typeof raw === 'string' && raw !== '') return undefined;
  return isError(error) ? 'no response' : undefined;
}

/** Reads a failed attempt's error once, for the table (`classify`), the write rule and the breaker. */
export function readFailure(error: unknown, options: Pick<ResolvedOptions, 'statusCodes' | 'errorCodes'>): Failure {
  if (isCancel(error)) return { kind: 'cancel', status: undefined, reason: 'cancelled', unprocessed: false };
  // The status of a failure that is a status: the response arrived whole and `validateStatus`
  // refused it (axios accepts every status when it is null). A response it accepted whose body then
  // failed (the socket closed mid-body) is a transport failure; an error built without a config (a
  // hand-made adapter's) is taken at its word. Optional chaining reads nothing off a primitive.
  const looked = error as FailureLike | null | undefined;
  const status = looked?.response?.status;
  const validate = looked?.config?.validateStatus;
  if (typeof status === 'number' && validate !== null && (typeof validate !== 'function' || !validate(status))) {
    const kind = options.statusCodes.has(status) ? 'status' : 'other';
    return { kind, status, reason: String(status), unprocessed: NOT_PROCESSED_STATUSES.has(status) };
  }
  const code = networkCode(error, options.errorCodes);
  const transport = code ?? transportWithoutCode(error);
  if (transport === undefined) {
    const raw = asFailure(error)?.code;
    return { kind: 'other', status: undefined, reason: typeof raw === 'string' ? raw : 'error', unprocessed: false };
  }
  return {
    kind: 'network',
    status: undefined,
    reason: transport,
    unprocessed: code !== undefined && NEVER_SENT_CODES.has(code),
  };
}

/** A body that is a stream: the first attempt consumed it, so it can never be re-sent. */
export function isStream(data: unknown): boolean {
  if (data === null || typeof data !== 'object') return false;
  if (typeof (data as { pipe?: unknown }).pipe === 'function') return true;
  return typeof ReadableStream !== 'undefined' && data instanceof ReadableStream;
}

/** What the decision table needs of the call, beside its failure. */
export interface AttemptFacts {
  /** Upper-case method. */
  method: string;
  /** The call carries an Idempotency-Key header (the caller's or generated). */
  keyed: boolean;
  /** The key is one the server dedupes: the caller set it, or the server is declared to (see the table). */
  deduped: boolean;
  /** The caller opted into `unsafeRetryWrites`: a write is repeated as if its key were deduped. */
  unsafe?: boolean;
}

/** The decision table as a pure function of one failed attempt (`readFailure`) and its call. */
export function classify(facts: AttemptFacts, failure: Failure): Decision {
  const { kind, status, reason } = failure;
  if (kind === 'cancel') return { retry: false, stopReason: 'aborted', reason };
  // 409 is retried for a keyed call: a deduping server answers it while the first request is in progress.
  if (kind === 'other' && !(status === 409 && facts.keyed))
    return { retry: false, stopReason: 'not-retryable', reason };
  if (!mayRepeat(facts, failure.unprocessed)) {
    // The server may have done the work (a 504 or a timeout after commit); repeating it could
    // charge twice. Only a key the server dedupes lets it tell a repeat from a new request.
    return { retry: false, stopReason: 'non-idempotent', reason };
  }
  return { retry: true, reason };
}

/**
 * The server's explicit say over the table: `x-should-retry: true|false` (OpenAI's and Anthropic's
 * servers) or Stripe's `Stripe-Should-Retry`, as it knows whether the request was processed (the
 * only word that lets a write it answered be repeated without `unsafeRetryWrites`); and a 403 that
 * is a throttle (its quota is spent, or it asks for a wait: GitHub's limits), which was not
 * processed, so it is retried as a 429 is. A cancel stays a cancel.
 */
export function serverSays(
  decision: Decision,
  answer: Pick<Answer, 'status' | 'says' | 'sayer' | 'throttle'>,
): Decision {
  if (answer.status === undefined || (!decision.retry && decision.stopReason === 'aborted')) return decision;
  if (answer.says === false) return { retry: false, stopReason: 'not-retryable', reason: `${answer.sayer}: false` };
  if (answer.says === true) return { retry: true, reason: decision.reason };
  if (answer.status === 403 && answer.throttle) return { retry: true, reason: '403' };
  return decision;
}

/**
 * `shouldRetry`'s word over the table's decision: `false` stops a retry, `true` retries a failure the
 * table stopped — but never a write the server may have processed (`mayRepeat`; `unprocessed`: it
 * refused or never got the request, or the server said to retry). Anything else keeps the table's.
 */
export function overruled(
  decision: Decision,
  verdict: boolean | undefined,
  facts: Pick<AttemptFacts, 'method' | 'deduped' | 'unsafe'>,
  unprocessed: boolean,
): Decision {
  if (verdict === false && decision.retry)
    return { retry: false, stopReason: 'not-retryable', reason: decision.reason };
  if (verdict !== true || decision.retry) return decision;
  if (!mayRepeat(facts, unprocessed)) return { ...decision, stopReason: 'non-idempotent' };
  return { retry: true, reason: decision.reason };
}

/**
 * A response `shouldRetryResponse` asked to retry. A write the server answered was processed:
 * asking again would do it again (or, deduped, only replay the same answer), so only the server's
 * word (`serverRetry`) or `unsafeRetryWrites` repeats it.
 */
export function retryResponse(facts: Pick<AttemptFacts, 'method' | 'unsafe'>, serverRetry: boolean): Decision {
  if (!mayRepeat({ ...facts, deduped: false }, serverRetry)) {
    return { retry: false, stopReason: 'non-idempotent', reason: 'shouldRetryResponse' };
  }
  return { retry: true, reason: 'shouldRetryResponse' };
}
