/** Header values shared by the rate-limit header readers (`rate-limit-headers.ts`, `rate-limit-dialects.ts`). */

/** How the caller reads one header: the first value as text, or `undefined`. */
export type HeaderReader = (name: string) => string | undefined;

/** What the rate-limit headers of one response say; every field is optional. */
export interface RateLimitHint {
  /** Requests left in the current window. */
  remaining?: number;
  /** Milliseconds until the quota resets (or a token comes back). */
  resetMs?: number;
  /** Requests the window allows. */
  quota?: number;
  /** The window's length, in ms (OpenAI's and Anthropic's limits are per minute). */
  windowMs?: number;
  /**
   * The reset is when the whole quota is back, a request at a time (OpenAI's and Anthropic's
   * fields say so): with the quota known, the next request is free after one request's share of
   * the refill (`spentForMs`).
   */
  replenishes?: true;
}

/** A reset at or above this many seconds is a Unix time (2001-09-09), not a delay: no delay is 31 years long. */
const EPOCH_SECONDS = 1_000_000_000;
const NUMBER = /^\d+(?:\.\d+)?$/;

/** A non-negative decimal number, or `undefined`. */
export function count(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim().replace(/^"(.*)"$/, '$1');
  if (!NUMBER.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** Seconds of a reset to ms from now: a delta, or an epoch time (GitHub sends those). Past times are 0. */
export function resetToMs(seconds: number, nowMs: number): number {
  const ms = seconds >= EPOCH_SECONDS ? seconds * 1000 - nowMs : seconds * 1000;
  return Math.min(Math.max(0, Math.ceil(ms)), Number.MAX_SAFE_INTEGER);
}
