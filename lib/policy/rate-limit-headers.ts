/**
 * What a response says about the origin's rate limit, read from its headers by pure functions:
 * `retry-after-ms` (OpenAI's and Anthropic's servers), `x-should-retry` (and Stripe's
 * `Stripe-Should-Retry`), the IETF draft `RateLimit` and `RateLimit-Policy` fields
 * (draft-ietf-httpapi-ratelimit-headers, with the older `RateLimit-Limit/-Remaining/-Reset`), the
 * common `X-RateLimit-Limit/-Remaining/-Reset` (GitHub's), OpenAI's
 * `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` and Anthropic's
 * `anthropic-ratelimit-{requests,tokens,…}-{limit,remaining,reset}`. A value that does not parse is ignored
 * (the backoff then decides): never NaN, never negative.
 *
 * A reset comes in four forms, told apart by the field it is in and by its shape: delta seconds
 * (`RateLimit` `t`, `X-RateLimit-Reset: 12`), epoch seconds (`X-RateLimit-Reset: 1733300000`), a
 * duration (OpenAI: `6m0s`, `1s`, `20ms`) and an RFC 3339 time (Anthropic). The dialects are read in
 * `rate-limit-dialects.ts`, which a browser build carries only on request (docs/guides/browser.md).
 */

import { parseRetryAfter } from './retry-after';
import { count } from './header-values';
import type { HeaderReader, RateLimitHint } from './header-values';

export { resetToMs } from './header-values';
export type { HeaderReader, RateLimitHint } from './header-values';

/** `retry-after-ms`: a wait in (decimal) milliseconds; `undefined` when absent or malformed. */
export function parseRetryAfterMs(value: string | undefined): number | undefined {
  const n = count(value);
  return n === undefined ? undefined : Math.min(Math.ceil(n), Number.MAX_SAFE_INTEGER);
}

/** `x-should-retry` (or `Stripe-Should-Retry`): `true`, `false`, or `undefined` for anything else. */
export function parseShouldRetry(value: string | undefined): boolean | undefined {
  const text = value?.trim().toLowerCase();
  return text === 'true' ? true : text === 'false' ? false : undefined;
}

/** Whether a hint says the quota is spent: nothing left in the window. */
export function quotaSpent(h: RateLimitHint | undefined): boolean {
  return h?.remaining === 0;
}

/**
 * When a spent quota frees the next request, in ms from now: its reset, or for a dialect that
 * replenishes a request at a time with its quota known, one request's share of the refill at the
 * slower of the two rates the headers state (the quota per window: OpenAI's and Anthropic's are per
 * minute; and the reset for the whole quota), never later than the reset. 60 a minute, whole again
 * in `1s`: one is back in a second (not 1/60 of it); 500 a minute, whole in `1m0s`: 120 ms; 500,
 * whole in `6m0s`: 720 ms. `undefined` when the quota is not spent or no reset is given.
 */
export function spentForMs(h: RateLimitHint | undefined): number | undefined {
  if (!quotaSpent(h) || h?.resetMs === undefined) return undefined;
  if (h.replenishes !== true || h.quota === undefined) return h.resetMs;
  const refillMs = Math.max(h.windowMs ?? h.resetMs, h.resetMs);
  return Math.ceil(Math.min(h.resetMs, refillMs / h.quota));
}

/** The rate a hint's policy allows, per second, when it names a quota and a window. */
export function policyRate(h: RateLimitHint | undefined): number | undefined {
  if (h?.quota === undefined || h.windowMs === undefined) return undefined;
  const rate = (h.quota * 1000) / h.windowMs;
  return Number.isFinite(rate) && rate > 0 ? rate : undefined;
}

/** The server's wait in ms: `retry-after-ms` first (finer), then `Retry-After`. */
export function serverWaitMs(read: HeaderReader, nowMs: number): number | undefined {
  return parseRetryAfterMs(read('retry-after-ms')) ?? parseRetryAfter(read('retry-after'), nowMs);
}

/**
 * Whether an answer is a throttle: a 429; a 403 whose headers say the quota is spent or ask for a
 * wait (GitHub's primary and secondary limits; a bare 403 is a refusal, not a throttle); a 503 or
 * 529 ("overloaded") that asks for a wait.
 */
export function isThrottle(status: unknown, waitMs: number | undefined, hint: RateLimitHint | undefined): boolean {
  if (status === 429) return true;
  const asksToWait = waitMs !== undefined && waitMs > 0;
  if (status === 403) return asksToWait || quotaSpent(hint);
  return (status === 503 || status === 529) && asksToWait;
}
