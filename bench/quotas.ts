/**
 * Quotas as the vendors document them, kept by bench/server.ts for bench:never-worse: which
 * requests a quota counts (a path prefix, and the JSON body's `model` for a per-model one), when
 * it refills, and the headers and body each vendor sends with an answer.
 *
 * - `github`: a fixed window per resource; `X-RateLimit-Limit`, `-Remaining`, `-Used`, `-Reset`
 *   (epoch seconds) and `-Resource` on every answer; a spent quota is a 403 with
 *   `{"message": "API rate limit exceeded …"}` and no Retry-After.
 * - `anthropic`: `anthropic-ratelimit-requests-limit`, `-remaining`, `-reset` (RFC 3339); a 429
 *   with `retry-after` in seconds and a `rate_limit_error` body.
 * - `openai`: refilled continuously (`limit` per `windowMs`); `x-ratelimit-limit-requests`,
 *   `-remaining-requests`, `-reset-requests` (the time until it is full again, as `6m0s`, `1s`,
 *   `720ms`); a 429 with no Retry-After.
 * - `ietf`: a fixed window; `RateLimit-Policy: "default";q=…;w=…` and `RateLimit: "default";r=…;t=…`
 *   (whole seconds to the window's end, rounded up, so never early).
 * - `x-ratelimit`: a fixed window; `X-RateLimit-Limit`, `-Remaining`, `-Reset` (epoch seconds).
 */
export type Dialect = 'github' | 'anthropic' | 'openai' | 'ietf' | 'x-ratelimit';

/** How the server's rate limit (ServerOptions.bucket in server.ts) tells its limit. */
export const BUCKET_HINTS = [
  'retry-after',
  'none',
  'bucket-x-ratelimit',
  'bucket-ratelimit',
  'ratelimit',
  'x-ratelimit',
] as const;
export type BucketHints = (typeof BUCKET_HINTS)[number];

export interface Quota {
  dialect: Dialect;
  /** The path prefix the quota counts, and for a quota per model the request body's `model`. */
  path: string;
  model?: string;
  limit: number;
  /** Requests left at the start. */
  remaining: number;
  /** Epoch ms the current window ends (unused by `openai`, which refills continuously). */
  resetAt: number;
  windowMs: number;
  /** The status of a refusal (GitHub: 403). */
  status: number;
  /** GitHub's `X-RateLimit-Resource`. */
  resource?: string;
}

export interface QuotaAnswer {
  ok: boolean;
  status: number;
  headers: Record<string, string>;
  body?: string;
}

/**
 * A quota's state while the server runs: `remaining` may be fractional (`openai`); `at` is when it
 * was last refilled, unset until the first request, so a quota that starts empty is empty when the
 * first call meets it (the rest of the organisation spent it), however long the client took to start.
 */
export interface QuotaState extends Quota {
  at?: number;
}

export function matches(q: Quota, path: string, model: unknown): boolean {
  return path.startsWith(q.path) && (q.model === undefined || q.model === model);
}

/** Counts one request against `q` (refilled first): whether it is served, and what the vendor says. */
export function take(q: QuotaState, now: number): QuotaAnswer {
  refill(q, now);
  const ok = q.remaining >= 1;
  if (ok) q.remaining -= 1;
  const left = Math.floor(q.remaining);
  const seconds = Math.max(0, Math.ceil((q.resetAt - now) / 1000));
  const headers: Record<string, string> = {};
  let body: object | undefined;
  if (q.dialect === 'github') {
    headers['x-ratelimit-limit'] = String(q.limit);
    headers['x-ratelimit-remaining'] = String(left);
    headers['x-ratelimit-used'] = String(q.limit - left);
    headers['x-ratelimit-reset'] = String(Math.ceil(q.resetAt / 1000));
    headers['x-ratelimit-resource'] = q.resource ?? 'core';
    body = { message: 'API rate limit exceeded for user ID 1.', documentation_url: 'https://docs.github.com/rest' };
  } else if (q.dialect === 'anthropic') {
    headers['anthropic-ratelimit-requests-limit'] = String(q.limit);
    headers['anthropic-ratelimit-requests-remaining'] = String(left);
    headers['anthropic-ratelimit-requests-reset'] = new Date(q.resetAt).toISOString().replace(/\.\d+Z$/, 'Z');
    if (!ok) headers['retry-after'] = String(seconds);
    body = {
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' },
    };
  } else if (q.dialect === 'openai') {
    headers['x-ratelimit-limit-requests'] = String(q.limit);
    headers['x-ratelimit-remaining-requests'] = String(left);
    headers['x-ratelimit-reset-requests'] = duration(((q.limit - q.remaining) * q.windowMs) / q.limit);
    body = { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } };
  } else if (q.dialect === 'ietf') {
    headers['ratelimit-policy'] = `"default";q=${q.limit};w=${Math.round(q.windowMs / 1000)}`;
    headers['ratelimit'] = `"default";r=${left};t=${seconds}`;
  } else {
    headers['x-ratelimit-limit'] = String(q.limit);
    headers['x-ratelimit-remaining'] = String(left);
    headers['x-ratelimit-reset'] = String(Math.ceil(q.resetAt / 1000));
  }
  return {
    ok,
    status: ok ? 200 : q.status,
    headers,
    ...(ok || body === undefined ? {} : { body: JSON.stringify(body) }),
  };
}

function refill(q: QuotaState, now: number): void {
  if (q.dialect === 'openai') {
    q.remaining = Math.min(q.limit, q.remaining + ((now - (q.at ?? now)) * q.limit) / q.windowMs);
  } else if (now >= q.resetAt) {
    q.resetAt += Math.ceil((now - q.resetAt + 1) / q.windowMs) * q.windowMs;
    q.remaining = q.limit;
  }
  q.at = now;
}

/** A duration as OpenAI writes one: `6m0s`, `1s`, `1.5s`, `720ms`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = `${Number(((ms % 60_000) / 1000).toFixed(3))}s`;
  return minutes > 0 ? `${minutes}m${seconds}` : seconds;
}
