import type { RefusedBreakerOption } from './breaker-options';
import { MAX_TIMER_MS } from './defaults';
import { peerNames } from './peer-names';
import { nearestName } from './suggest';

/**
 * The words of every validation message, by code (docs/errors.md has an entry for each). `fail`
 * (validate.ts) is the only reader, and only outside a production build: a browser app's production
 * bundle drops the whole table. Each entry takes the values its words need; the check that throws
 * stays in the file that owns the option.
 */

/**
 * A value as an error message shows it: strings quoted (so `'3'` does not read as `3`), objects by
 * kind. Never throws (an object without a prototype has no toString).
 */
export function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol') return value.toString();
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'function' ? 'a function' : 'an object';
}

/** The value with its type, for when the type is the mistake: `the string "3"`, `the boolean true`. */
export function typed(value: unknown): string {
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean' || type === 'bigint' || type === 'symbol') {
    return `the ${type} ${shown(value)}`;
  }
  return shown(value);
}

/** `value` as `shown` gives it when it has the type expected, else with its type. */
export function given(value: unknown, expected: 'number' | 'string'): string {
  return typeof value === expected ? shown(value) : typed(value);
}

/**
 * An unknown name: a plugin-wide one given per request (`top`: every name of the plugin's options),
 * a peer library's name at the top of the options, or else the nearest known name or the list.
 */
function unknownName(key: string, known: Iterable<string>, top?: ReadonlySet<string>, what = 'option'): string {
  if (top?.has(key)) return `can be set only in retryPlugin({ ${key} }), not per request`;
  const peers = top === undefined ? {} : peerNames();
  if (Object.hasOwn(peers, key)) return peers[key]!;
  const nearest = nearestName(key, known);
  if (nearest !== undefined) return `is not a known ${what}; did you mean ${nearest}?`;
  return `is not a known ${what}; known: ${[...known].join(', ')}`;
}

/** What to use instead of an opossum option the plugin sets itself or cannot honour. */
function breakerInstead(key: RefusedBreakerOption): string {
  if (key === 'cache' || key === 'coalesce') return 'a caching layer such as axios-cache-interceptor';
  if (key === 'name' || key === 'group') return '`key`';
  return {
    timeout: "axios's own `timeout` (per attempt) and `deadlineMs` (per call)",
    errorFilter: '`statusCodes` and `errorCodes`: only their failures count against the breaker',
    rotateBucketController: 'nothing: the plugin rotates every breaker on one shared timer',
    enableSnapshots: 'nothing: snapshots stay off so a thousand origins do not mean a thousand timers',
    capacity: 'a concurrency limiter in front of axios',
  }[key];
}

const got = (value: unknown): string => `got ${typed(value)}`;
const gotShown = (value: unknown): string => `got ${shown(value)}`;
const gotNumber = (value: unknown): string => `got ${given(value, 'number')}`;
const optionsObject = (value: unknown) => `must be false or an options object, ${got(value)}`;
const trueOrFalse = (value: unknown) => `must be true or false, ${got(value)}`;
const atMostTimer = (value: number) => `must be at most ${MAX_TIMER_MS} (2^31 - 1), got ${value}`;
const matchable = (what: 'origin' | 'method') =>
  what === 'origin' ? "an absolute origin ('https://api.example.com')" : "a method name ('POST')";

export const MESSAGES = {
  E1: unknownName,
  E2: (value: unknown) => `must be a finite number >= 0, ${gotNumber(value)}`,
  E3: (value: unknown, min: number) => `must be a whole number >= ${min}, ${gotNumber(value)}`,
  E4: (value: unknown) => `must be a function, ${got(value)}`,
  E5: trueOrFalse,
  E6: (key: unknown) =>
    `must be 1-255 printable ASCII characters (no CR, LF or non-ASCII), got ${typeof key === 'string' && key.length > 255 ? `${key.length} characters` : given(key, 'string')}`,
  E7: atMostTimer,
  E8: (value: unknown, allowed: readonly string[]) =>
    `must be one of ${allowed.map(shown).join(', ')}, got ${given(value, 'string')}`,
  E9: (value: unknown) => `must be "clamp" or "fail", got ${given(value, 'string')}`,
  E10: (value: unknown) => `must be a finite number > 0, ${gotNumber(value)}`,
  E11: (value: unknown) => `must be an object such as { maxBytes: 8388608 }, ${got(value)}`,
  E12: (value: unknown) => `must be a positive whole number of bytes, ${gotNumber(value)}`,
  E13: () => "can be set only per request, in config.retry (it makes one call's body)",
  E14: (value: unknown) => `must be false, true or a header name such as "X-Retry-Attempt", ${got(value)}`,
  E15: (value: unknown) => `must be an object, ${got(value)}`,
  E16: () => 'cannot be true: omit it, or give an options object; false turns the plugin off for the call',
  E17: (value: unknown) =>
    `${optionsObject(value)}${typeof value === 'number' ? ` (for ${value} retries: { retries: ${value} })` : ''}`,
  E18: (value: unknown) => `must be an array of HTTP error statuses (400-599) such as [429, 503], ${got(value)}`,
  E19: (value: unknown) =>
    `must be an HTTP error status (400-599), ${gotNumber(value)}${Number.isInteger(value) && (value as number) >= 100 && (value as number) < 400 ? ' (a 1xx, 2xx or 3xx answer is not a failure, so it is never retried)' : ''}`,
  E20: (value: unknown) => `must be an array of error codes such as ["ECONNRESET"], ${got(value)}`,
  E21: (value: unknown) =>
    `must be an error code string such as "ECONNRESET", ${got(value)}${typeof value === 'number' || /^\d+$/.test(typeof value === 'string' ? value : '') ? ' (statuses go in statusCodes)' : ''}`,
  E22: (value: unknown, near: string | undefined, known: readonly string[], errno: RegExp) =>
    `is not a known error code, ${gotShown(value)}; ${near === undefined ? `known E… codes: ${known.filter((code) => errno.test(code)).join(', ')}` : `did you mean ${near}?`}`,
  E23: (value: unknown) =>
    `can be a string only per request (it would pin one key for every call; use retry: { idempotencyKey } on the request), ${gotShown(value)}`,
  E24: (value: unknown, perRequest: boolean) =>
    `must be ${perRequest ? 'false, a key string or an options object' : 'false or an options object'}, ${got(value)}`,
  E25: (value: unknown) => `must be a header name such as "Idempotency-Key", ${got(value)}`,
  E26: (value: unknown) => `must be an array of method names such as ["POST"], ${got(value)}`,
  E27: (value: unknown) => `must be a method name such as "POST", ${got(value)}`,
  E28: (value: unknown) => `must be a boolean, an array of origins or a function (origin) => boolean, ${got(value)}`,
  E29: (value: unknown) => `must list absolute URLs such as "https://api.example.com", got ${given(value, 'string')}`,
  E30: (value: unknown, positive: boolean) =>
    `must be a finite number ${positive ? '> 0' : '>= 0'}, ${gotNumber(value)}`,
  E31: (value: unknown) => `must be a share from 0 to 1 (0.1 is 10 %), ${gotNumber(value)}`,
  E32: (value: unknown) => `must be false, a RetryBudget or an options object, ${got(value)}`,
  E33: optionsObject,
  E34: atMostTimer,
  E35: (resetTimeout: number, maxResetTimeout: number) =>
    `(${resetTimeout}) must not be above maxResetTimeout (${maxResetTimeout})`,
  E36: (value: number) => `must be from 0 to below 100 (the breaker opens above it), got ${value}`,
  E37: (value: number) => `must be at least 1, got ${value}`,
  E38: (value: unknown) => `must be a BreakerSync (e.g. redisBreakerSync(client)), ${got(value)}`,
  E39: (value: unknown) => `must be false or { delayMs, maxHedges? }, ${got(value)}`,
  E40: (value: unknown) => `must be ms (0 to ${MAX_TIMER_MS}) or "p50", "p90", "p95", "p99", ${gotShown(value)}`,
  E41: (value: unknown) => `must be a whole number from 1 to 10, ${gotNumber(value)}`,
  E42: optionsObject,
  E43: (value: unknown) => `must be a RateLimitStore (e.g. redisRateLimitStore(client)), ${got(value)}`,
  E44: (value: unknown) => `must be false or rateLimitHeaders() (axios-resilience/rate-limit-headers), ${got(value)}`,
  E45: (value: unknown) => `must be "all", ${gotShown(value)}`,
  E46: (value: unknown) => `can only be false per request (faults are set on the plugin), ${gotShown(value)}`,
  E47: (value: unknown, what: 'origin' | 'method') =>
    `must be ${matchable(what)} or a list of them, ${gotShown(value)}`,
  E48: (what: 'origin' | 'method') => `must be ${matchable(what)} or a non-empty list of them, got an empty array`,
  E49: (value: unknown) => `must be an object such as { method: 'POST' }, ${gotShown(value)}`,
  E50: (value: unknown) => `must be a path starting with '/' or a RegExp, ${gotShown(value)}`,
  E51: (kinds: readonly string[]) =>
    `must have exactly one of status, error or latencyMs, got ${kinds.length === 0 ? 'none' : kinds.join(' and ')}`,
  E52: () => 'is allowed only with status',
  E53: (value: unknown) => `must be a failure status (400-599), ${gotNumber(value)}`,
  E54: (value: unknown) => `must be an object of header strings, ${gotShown(value)}`,
  E55: (value: unknown, allowed: readonly string[]) => `must be one of ${allowed.join(', ')}, ${gotShown(value)}`,
  E56: (value: unknown) => `must be ms from 0 to ${MAX_TIMER_MS}, ${gotNumber(value)}`,
  E57: (value: unknown) => `must be an object such as { rate: 0.1, status: 503 }, ${gotShown(value)}`,
  E58: (value: unknown) => `must be a number from 0 to 1, ${gotNumber(value)}`,
  E59: (value: unknown) => `must be 'before' or 'after', ${gotShown(value)}`,
  E60: (value: unknown) => `must be an object such as { faults: [...] }, ${gotShown(value)}`,
  E61: (value: unknown) => `must be an array of faults, ${gotShown(value)}`,
  E62: (value: unknown) => `must be a whole number, ${gotNumber(value)}`,
  E63: trueOrFalse,
  E64: (key: RefusedBreakerOption) => `cannot be set here; use ${breakerInstead(key)}`,
  E65: (value: unknown) => `must return a number of ms >= 0 or undefined, ${got(value)}`,
  E66: (value: unknown) =>
    `must return a request body (a string, Buffer, ArrayBuffer, typed array, Blob, FormData, URLSearchParams or stream), ${got(value)}`,
  E67: (value: unknown) => `must return a non-empty string, ${got(value)}`,
  E68: (value: unknown) => `needs axios or an axios.create() instance, ${got(value)}`,
  E69: () =>
    'was called on a plugin after its close(); a closed plugin retries nothing, so make a new one with retryPlugin()',
  E70: () =>
    'already has a different retry plugin installed; eject or close it first (two would retry each other’s retries)',
};

/** A validation error's code (docs/errors.md), and the values its words are made of. */
export type Code = keyof typeof MESSAGES;
export type Values<C extends Code> = Parameters<(typeof MESSAGES)[C]>;
