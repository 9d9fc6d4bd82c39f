import { AxiosHeaders } from 'axios';
import type { AxiosResponseHeaders } from 'axios';
import { isThrottle, parseShouldRetry, quotaSpent, serverWaitMs } from './rate-limit-headers';
import type { HeaderReader, RateLimitHint } from './rate-limit-headers';
import type { Dialects } from './rate-limit-header-options';

/** What kind of failure an attempt ended in; the breaker counts `status` and `network` only. */
export type FailureKind = 'status' | 'network' | 'cancel' | 'other';

/**
 * One failed attempt, read once (`readFailure` in `classify.ts`): what the decision table, the write rule and the
 * breaker need of it, so none of them reads the error again.
 */
export interface Failure {
  /** `status` and `network` are the transient failures the table retries (method aside) and the breaker counts. */
  kind: FailureKind;
  /** The status `validateStatus` refused, if the failure is one. */
  status: number | undefined;
  /** The reason text: the status, the network code, `response cut off`, `no response`, the raw code, `cancelled`. */
  reason: string;
  /** The server never processed the attempt: it refused it (408, 429) or never got it (a connection refused…). */
  unprocessed: boolean;
}

/**
 * One answer, read once: what its status and headers say to the decision table, the plan and the
 * rate limiter, which all read this value instead of the headers. A success with no rate-limit field
 * costs one look at the headers, a failure one look at their names; the dialects are parsed only for a
 * 429 or where a field is there (a 503 from an origin that never spoke of rate limits costs no parse).
 */
export interface Answer {
  /** The status, when there was a response. */
  status: number | undefined;
  /** A failed attempt's error, read once (`policy/classify.ts`): the table, the write rule and the breaker read it. */
  failure: Failure | undefined;
  /** When it was read, by the plugin's clock: `waitMs` and `hint.resetMs` run from here. */
  at: number;
  /** The server's wait (`retry-after-ms`, else `Retry-After`), in ms; `undefined` without a valid one. */
  waitMs: number | undefined;
  /** What the rate-limit fields say (any dialect), if any. */
  hint: RateLimitHint | undefined;
  /** A throttle (`isThrottle`): a 429; a 403 whose quota is spent or that asks for a wait; a 503 or 529 that asks for one. */
  throttle: boolean;
  /** The quota is spent (`remaining: 0`): the next call is refused until `spentForMs`. */
  spent: boolean;
  /** When a spent quota frees the next request, in ms (see `spentForMs`). */
  spentForMs: number | undefined;
  /** The rate the server's policy states, per second. */
  policyRate: number | undefined;
  /** A throttle that said nothing but its status: no wait, no rate-limit field. */
  hintless: boolean;
  /** The server's own word on a retry: `x-should-retry` (or Stripe's `Stripe-Should-Retry`): `true`, `false` or none. */
  says: boolean | undefined;
  /** The header that said it, for the reason text. */
  sayer: 'x-should-retry' | 'stripe-should-retry';
  /** The quota this answer counted against, where the server names it (GitHub's `X-RateLimit-Resource`). */
  resource: string | undefined;
}

/** Fields a success is read for besides the rate-limit dialects' (a 202 may say when, or whether, to ask again). */
const WAIT_OR_RESOURCE = [
  'retry-after',
  'retry-after-ms',
  'x-ratelimit-resource',
  'x-should-retry',
  'stripe-should-retry',
];

/** Whether `fields` has any of `names` (one loop, no closure: read on every success of the loop). */
function hasAny(fields: Record<string, unknown>, names: readonly string[]): boolean {
  for (let i = 0; i < names.length; i++) if (fields[names[i]!] !== undefined) return true;
  return false;
}

/**
 * Whether a failure's headers name, in any case, a field an answer is read for: every one has
 * `ratelimit` or `retry` in its name (`Retry-After`, `retry-after-ms`, `x-should-retry`,
 * `Stripe-Should-Retry`, each dialect's). A 503 without one is read no further.
 */
function hasFieldToRead(fields: Record<string, unknown>): boolean {
  const names = Object.keys(fields);
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!.toLowerCase();
    if (name.includes('ratelimit') || name.includes('retry')) return true;
  }
  return false;
}

/** A response header as text (AxiosHeaders or a custom adapter's plain object; the first of repeats). */
export function headerReader(headers: unknown): HeaderReader {
  if (headers === null || typeof headers !== 'object') return () => undefined;
  const all = AxiosHeaders.from(headers as AxiosResponseHeaders);
  return (name) => {
    let value: unknown = all.get(name);
    if (Array.isArray(value)) value = value[0];
    return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
  };
}

/**
 * Reads an attempt's answer (`{ response }` or `{ error }`, its `failure` read by the decision table's
 * `readFailure`) at `now`, with the rate-limit header `dialects` the plugin reads (none: only the
 * server's wait and say).
 */
export function readAnswer(
  outcome: { response?: unknown; error?: unknown },
  now: number,
  dialects: Dialects | undefined,
  failure?: Failure,
): Answer {
  // The response an attempt ended in: the one it resolved with, or the one its error carries.
  const response = (outcome.response ?? (outcome.error as { response?: unknown } | null)?.response) as
    { status?: unknown; headers?: unknown } | null | undefined;
  const status = response?.status;
  const headers = response?.headers;
  const answer: Answer = {
    status: typeof status === 'number' ? status : undefined,
    failure,
    at: now,
    waitMs: undefined,
    hint: undefined,
    throttle: false,
    spent: false,
    spentForMs: undefined,
    policyRate: undefined,
    hintless: false,
    says: undefined,
    sayer: 'x-should-retry',
    resource: undefined,
  };
  const fields = headers !== null && typeof headers === 'object' ? (headers as Record<string, unknown>) : undefined;
  const ok = typeof status === 'number' && status < 400;
  // Nothing more to read without a rate-limit field or a wait: a failure is looked at by its names, in
  // any case (`hasFieldToRead`); a success by name, once (adapters hand names over in lower case).
  if (fields === undefined || (!ok && !hasFieldToRead(fields))) {
    answer.throttle = answer.hintless = !ok && isThrottle(status, undefined, undefined);
    return answer;
  }
  const mayBeSpent = dialects !== undefined && dialects.mayBeSpent(fields);
  if (ok && !mayBeSpent && !hasAny(fields, WAIT_OR_RESOURCE)) return answer;
  const read = headerReader(headers);
  answer.resource = read('x-ratelimit-resource')?.trim().toLowerCase() || undefined;
  // A 202 may say when to ask again, as a throttle does.
  answer.waitMs = serverWaitMs(read, now);
  const says = read('x-should-retry');
  if (says === undefined) answer.sayer = 'stripe-should-retry';
  answer.says = parseShouldRetry(says ?? read('stripe-should-retry'));
  if (dialects !== undefined && (ok || status === 429 || mayBeSpent || fields['ratelimit-policy'] !== undefined)) {
    const hint = dialects.parseRateLimitHeaders(read, now);
    answer.hint = hint;
    answer.spent = quotaSpent(hint);
    answer.spentForMs = dialects.spentForMs(hint);
    answer.policyRate = dialects.policyRate(hint);
  }
  answer.throttle = isThrottle(status, answer.waitMs, answer.hint);
  answer.hintless = answer.throttle && answer.waitMs === undefined && answer.hint === undefined;
  return answer;
}
