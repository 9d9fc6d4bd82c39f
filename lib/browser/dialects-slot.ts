/**
 * The browser build's `policy/rate-limit-dialects.ts`: the same functions, answering as for a
 * response without those headers (no hint, nothing spent) until `useRateLimitHeaders()` from
 * `axios-resilience/rate-limit-headers` puts the real readers here. `Retry-After`,
 * `retry-after-ms` and `x-should-retry` are read either way (`policy/rate-limit-headers.ts`).
 */
import type * as Dialects from '../policy/rate-limit-dialects';
import type { HeaderReader, RateLimitHint } from '../policy/header-values';

let dialects: typeof Dialects | undefined;

/** Reads the dialects from now on, in every plugin of the page. */
export function readDialects(real: typeof Dialects): void {
  dialects = real;
}

export function parseRateLimitHeaders(read: HeaderReader, nowMs: number): RateLimitHint | undefined {
  return dialects?.parseRateLimitHeaders(read, nowMs);
}

export function mayBeSpent(headers: Record<string, unknown>): boolean {
  return dialects?.mayBeSpent(headers) ?? false;
}

export function fieldParams(value: string | undefined): Record<string, string> {
  return dialects?.fieldParams(value) ?? {};
}

export function parseDuration(value: string | undefined): number | undefined {
  return dialects?.parseDuration(value);
}

export function parseInstant(value: string | undefined, nowMs: number): number | undefined {
  return dialects?.parseInstant(value, nowMs);
}
