/**
 * The rate-limit header dialects: the IETF draft `RateLimit` and `RateLimit-Policy` fields
 * (draft-ietf-httpapi-ratelimit-headers, with the older `RateLimit-Limit/-Remaining/-Reset`), the
 * common `X-RateLimit-Limit/-Remaining/-Reset` (GitHub's), OpenAI's
 * `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` and Anthropic's
 * `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`, read
 * into one `RateLimitHint`. A browser build carries them only for a plugin given `rateLimitHeaders()`
 * (axios-resilience/rate-limit-headers).
 */
import { count, resetToMs } from './header-values';
import type { HeaderReader, RateLimitHint } from './header-values';
import { quotaSpent, spentForMs } from './rate-limit-headers';

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

const DURATION_PART = /(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/y;
const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 1e-3, µs: 1e-3, ns: 1e-6 };

/** A duration as OpenAI sends its resets (`6m0s`, `1s`, `20ms`, `1h2m3.5s`), in ms; `undefined` when malformed. */
export function parseDuration(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  let ms = 0;
  DURATION_PART.lastIndex = 0;
  while (DURATION_PART.lastIndex < text.length) {
    const at = DURATION_PART.lastIndex;
    const part = DURATION_PART.exec(text);
    if (part === null || part.index !== at) return undefined;
    ms += Number(part[1]) * UNIT_MS[part[2]!]!;
  }
  return Number.isFinite(ms) ? Math.min(Math.ceil(ms), Number.MAX_SAFE_INTEGER) : undefined;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 time (Anthropic's resets) as ms from `nowMs`, 0 when past; `undefined` when malformed. */
export function parseInstant(value: string | undefined, nowMs: number): number | undefined {
  const text = value?.trim();
  if (text === undefined || !RFC3339.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, Math.ceil(at - nowMs)) : undefined;
}

/** A hint from one dialect's fields; `resetMs` already in ms from now. */
function hint(
  remaining: number | undefined,
  resetMs: number | undefined,
  quota: number | undefined,
  windowS: number | undefined,
): RateLimitHint | undefined {
  const out: RateLimitHint = {};
  if (remaining !== undefined) out.remaining = Math.floor(remaining);
  if (resetMs !== undefined) out.resetMs = resetMs;
  if (quota !== undefined && quota > 0) out.quota = quota;
  if (windowS !== undefined && windowS > 0) out.windowMs = Math.min(windowS * 1000, Number.MAX_SAFE_INTEGER);
  return Object.keys(out).length === 0 ? undefined : out;
}

/** Seconds (delta or epoch) to ms from now, or `undefined`. */
function seconds(value: string | undefined, nowMs: number): number | undefined {
  const n = count(value);
  return n === undefined ? undefined : resetToMs(n, nowMs);
}

/** OpenAI's and Anthropic's limits are per minute (requests and tokens per minute): their window. */
const MINUTE_MS = 60_000;

/**
 * The hint of a per-minute quota refilled continuously (OpenAI's, Anthropic's), whose reset is when
 * the whole quota is back: its requests' fields, or, where its tokens are spent and free the next
 * request later than its requests do, the tokens'. The tokens a request will need are in no header;
 * the two limits are set together, so a request's share of the tokens is taken as the limit's tokens
 * per request, and it is back as a request is (`spentForMs`): the spent tokens' hint keeps the
 * requests' limit as its quota, and their reset as its own.
 */
function perMinute(requests: RateLimitHint | undefined, tokensResetMs: number | undefined): RateLimitHint | undefined {
  if (requests === undefined && tokensResetMs === undefined) return undefined;
  const found: RateLimitHint = { ...requests, windowMs: MINUTE_MS, replenishes: true };
  if (tokensResetMs === undefined) return found;
  const tokens: RateLimitHint = { ...found, remaining: 0, resetMs: tokensResetMs };
  return !quotaSpent(found) || spentForMs(tokens)! > spentForMs(found)! ? tokens : found;
}

/**
 * When the spent token quotas of `kinds` (`tokens`, `input-tokens`, …) are whole again, the latest,
 * in ms from now; `undefined` when none is spent (or none says when).
 */
function tokensSpentFor(
  read: HeaderReader,
  field: (kind: string, part: 'remaining' | 'reset') => string,
  kinds: readonly string[],
  reset: (value: string | undefined) => number | undefined,
): number | undefined {
  let latest: number | undefined;
  for (const kind of kinds) {
    if (count(read(field(kind, 'remaining'))) !== 0) continue;
    const ms = reset(read(field(kind, 'reset')));
    if (ms !== undefined && (latest === undefined || ms > latest)) latest = ms;
  }
  return latest;
}

const OPENAI_TOKENS = ['tokens'] as const;
const ANTHROPIC_TOKENS = ['tokens', 'input-tokens', 'output-tokens'] as const;

/**
 * The rate-limit hint of a response, from the first dialect that parses: the IETF `RateLimit` /
 * `RateLimit-Policy` pair, the older `RateLimit-*` fields, `X-RateLimit-*`, OpenAI's, Anthropic's;
 * `undefined` when none does.
 */
export function parseRateLimitHeaders(read: HeaderReader, nowMs: number): RateLimitHint | undefined {
  const field = read('ratelimit');
  const policy = read('ratelimit-policy');
  if (field !== undefined || policy !== undefined) {
    const f = fieldParams(field);
    const p = fieldParams(policy);
    const found = hint(
      count(f.r ?? f.remaining),
      seconds(f.t ?? f.reset, nowMs),
      count(p.q ?? f.limit ?? firstItem(policy)),
      count(p.w ?? f.w),
    );
    if (found !== undefined) return found;
  }
  return (
    hint(
      count(read('ratelimit-remaining')),
      seconds(read('ratelimit-reset'), nowMs),
      count(read('ratelimit-limit')),
      undefined,
    ) ??
    hint(
      count(read('x-ratelimit-remaining')),
      seconds(read('x-ratelimit-reset'), nowMs),
      count(read('x-ratelimit-limit')),
      undefined,
    ) ??
    perMinute(
      hint(
        count(read('x-ratelimit-remaining-requests')),
        parseDuration(read('x-ratelimit-reset-requests')),
        count(read('x-ratelimit-limit-requests')),
        undefined,
      ),
      tokensSpentFor(read, (kind, part) => `x-ratelimit-${part}-${kind}`, OPENAI_TOKENS, parseDuration),
    ) ??
    perMinute(
      hint(
        count(read('anthropic-ratelimit-requests-remaining')),
        parseInstant(read('anthropic-ratelimit-requests-reset'), nowMs),
        count(read('anthropic-ratelimit-requests-limit')),
        undefined,
      ),
      tokensSpentFor(
        read,
        (kind, part) => `anthropic-ratelimit-${kind}-${part}`,
        ANTHROPIC_TOKENS,
        (value) => parseInstant(value, nowMs),
      ),
    )
  );
}

/**
 * Whether an answer's headers may say the quota is spent: read on every success, so one property
 * read per dialect where none is there (adapters hand headers over in lower case; a custom
 * adapter's in another case is read at the next throttle).
 */
export function mayBeSpent(headers: Record<string, unknown>): boolean {
  return (
    headers['ratelimit'] !== undefined ||
    headers['x-ratelimit-remaining'] !== undefined ||
    headers['ratelimit-remaining'] !== undefined ||
    headers['x-ratelimit-remaining-requests'] !== undefined ||
    headers['anthropic-ratelimit-requests-remaining'] !== undefined
  );
}

/** The bare item of a policy's first member (`100;w=60` in an older draft gives `100`). */
function firstItem(policy: string | undefined): string | undefined {
  const item = policy?.split(',')[0]?.split(';')[0]?.trim();
  return item === undefined || item === '' ? undefined : item;
}
