/**
 * What a response says about the origin's rate limit, read from its headers by pure functions:
 * `retry-after-ms` (OpenAI's and Anthropic's servers), `x-should-retry`, the IETF draft `RateLimit`
 * and `RateLimit-Policy` fields (draft-ietf-httpapi-ratelimit-headers, with the older
 * `RateLimit-Limit/-Remaining/-Reset`), and the common `X-RateLimit-Limit/-Remaining/-Reset`.
 * A value that does not parse is ignored (the backoff then decides): never NaN, never negative.
 */

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
  /** The window's length, in ms. */
  windowMs?: number;
}

/** A reset at or above this many seconds is a Unix time (2001-09-09), not a delay: no delay is 31 years long. */
const EPOCH_SECONDS = 1_000_000_000;
const NUMBER = /^\d+(?:\.\d+)?$/;

/** A non-negative decimal number, or `undefined`. */
function count(value: string | undefined): number | undefined {
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

/** `retry-after-ms`: a wait in (decimal) milliseconds; `undefined` when absent or malformed. */
export function parseRetryAfterMs(value: string | undefined): number | undefined {
  const n = count(value);
  return n === undefined ? undefined : Math.min(Math.ceil(n), Number.MAX_SAFE_INTEGER);
}

/** `x-should-retry`: `true`, `false`, or `undefined` for anything else. */
export function parseShouldRetry(value: string | undefined): boolean | undefined {
  const text = value?.trim().toLowerCase();
  return text === 'true' ? true : text === 'false' ? false : undefined;
}

/**
 * The parameters of a structured-field list or dictionary, from its first member that has any:
 * `"default";r=50;t=30` gives `{ r: '50', t: '30' }`, and the older dictionary form
 * `limit=100, remaining=50, reset=30` gives those three keys. Where a server lists several
 * policies, the first that names a key wins it.
 */
export function fieldParams(value: string | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  if (value === undefined) return params;
  for (const member of value.split(',')) {
    for (const part of member.split(';')) {
      const eq = part.indexOf('=');
      if (eq <= 0) continue;
      const key = part.slice(0, eq).trim().toLowerCase();
      if (!/^[a-z*][a-z0-9_.*-]*$/.test(key) || Object.hasOwn(params, key)) continue;
      params[key] = part.slice(eq + 1).trim();
    }
  }
  return params;
}

function hint(
  remaining: number | undefined,
  reset: number | undefined,
  quota: number | undefined,
  windowS: number | undefined,
  nowMs: number,
): RateLimitHint | undefined {
  const out: RateLimitHint = {};
  if (remaining !== undefined) out.remaining = Math.floor(remaining);
  if (reset !== undefined) out.resetMs = resetToMs(reset, nowMs);
  if (quota !== undefined && quota > 0) out.quota = quota;
  if (windowS !== undefined && windowS > 0) out.windowMs = Math.min(windowS * 1000, Number.MAX_SAFE_INTEGER);
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * The rate-limit hint of a response: the IETF `RateLimit` / `RateLimit-Policy` pair first, then
 * the older `RateLimit-*` fields, then `X-RateLimit-*`; `undefined` when none parses.
 */
export function parseRateLimitHeaders(read: HeaderReader, nowMs: number): RateLimitHint | undefined {
  const field = read('ratelimit');
  const policy = read('ratelimit-policy');
  if (field !== undefined || policy !== undefined) {
    const f = fieldParams(field);
    const p = fieldParams(policy);
    const found = hint(
      count(f.r ?? f.remaining),
      count(f.t ?? f.reset),
      count(p.q ?? f.limit ?? firstItem(policy)),
      count(p.w ?? f.w),
      nowMs,
    );
    if (found !== undefined) return found;
  }
  const older = hint(
    count(read('ratelimit-remaining')),
    count(read('ratelimit-reset')),
    count(read('ratelimit-limit')),
    undefined,
    nowMs,
  );
  if (older !== undefined) return older;
  return hint(
    count(read('x-ratelimit-remaining')),
    count(read('x-ratelimit-reset')),
    count(read('x-ratelimit-limit')),
    undefined,
    nowMs,
  );
}

/** The bare item of a policy's first member (`100;w=60` in an older draft gives `100`). */
function firstItem(policy: string | undefined): string | undefined {
  const item = policy?.split(',')[0]?.split(';')[0]?.trim();
  return item === undefined || item === '' ? undefined : item;
}

/** Whether a hint says the quota is spent: nothing left in the window. */
export function quotaSpent(h: RateLimitHint | undefined): boolean {
  return h?.remaining === 0;
}

/** The rate a hint's policy allows, per second, when it names a quota and a window. */
export function policyRate(h: RateLimitHint | undefined): number | undefined {
  if (h?.quota === undefined || h.windowMs === undefined) return undefined;
  const rate = (h.quota * 1000) / h.windowMs;
  return Number.isFinite(rate) && rate > 0 ? rate : undefined;
}
