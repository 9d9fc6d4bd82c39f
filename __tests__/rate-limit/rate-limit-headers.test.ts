/** The rate-limit headers, read by pure functions: what each form says, and what is ignored. */
import {
  fieldParams,
  parseRateLimitHeaders,
  parseRetryAfterMs,
  parseShouldRetry,
  policyRate,
  quotaSpent,
  resetToMs,
} from '../../lib/policy/rate-limit-headers';

const NOW = Date.UTC(2026, 11, 3, 6, 0, 0);
const headers =
  (h: Record<string, string>) =>
  (name: string): string | undefined =>
    h[name];

describe('retry-after-ms and x-should-retry', () => {
  test.each<[string | undefined, number | undefined]>([
    ['1500', 1500],
    ['0', 0],
    ['12.4', 13],
    [' 20 ', 20],
    ['-5', undefined],
    ['1e3', undefined],
    ['abc', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('retry-after-ms %p is %p', (value, ms) => expect(parseRetryAfterMs(value)).toBe(ms));

  test.each<[string | undefined, boolean | undefined]>([
    ['true', true],
    ['FALSE', false],
    [' false ', false],
    ['yes', undefined],
    [undefined, undefined],
  ])('x-should-retry %p is %p', (value, says) => expect(parseShouldRetry(value)).toBe(says));
});

describe('the IETF draft fields', () => {
  test('RateLimit and RateLimit-Policy as structured fields', () => {
    const hint = parseRateLimitHeaders(
      headers({ ratelimit: '"default";r=50;t=30', 'ratelimit-policy': '"default";q=100;w=60' }),
      NOW,
    );
    expect(hint).toEqual({ remaining: 50, resetMs: 30_000, quota: 100, windowMs: 60_000 });
    expect(policyRate(hint)).toBeCloseTo(100 / 60);
  });

  test('the first of several policies wins each key', () => {
    expect(fieldParams('"burst";r=0;t=1, "daily";r=900;t=3600')).toEqual({ r: '0', t: '1' });
  });

  test('the older dictionary form and the older separate fields', () => {
    expect(parseRateLimitHeaders(headers({ ratelimit: 'limit=10, remaining=0, reset=7' }), NOW)).toEqual({
      remaining: 0,
      resetMs: 7000,
      quota: 10,
    });
    const older = parseRateLimitHeaders(
      headers({ 'ratelimit-limit': '100', 'ratelimit-remaining': '3', 'ratelimit-reset': '2' }),
      NOW,
    );
    expect(older).toEqual({ remaining: 3, resetMs: 2000, quota: 100 });
  });

  test('a spent quota is remaining 0, not a missing remaining', () => {
    expect(quotaSpent(parseRateLimitHeaders(headers({ ratelimit: '"d";r=0;t=1' }), NOW))).toBe(true);
    expect(quotaSpent(parseRateLimitHeaders(headers({ ratelimit: '"d";t=1' }), NOW))).toBe(false);
  });
});

describe('X-RateLimit-*', () => {
  test('a reset in delta seconds', () => {
    const hint = parseRateLimitHeaders(
      headers({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '12' }),
      NOW,
    );
    expect(hint).toEqual({ remaining: 0, resetMs: 12_000, quota: 60 });
  });

  test('a reset in epoch seconds, as GitHub sends it', () => {
    const reset = String(NOW / 1000 + 90);
    expect(parseRateLimitHeaders(headers({ 'x-ratelimit-reset': reset }), NOW)).toEqual({ resetMs: 90_000 });
  });

  test('an epoch reset in the past is 0; one ten years away is read whole (the engine clamps it)', () => {
    expect(resetToMs(NOW / 1000 - 5, NOW)).toBe(0);
    expect(resetToMs(NOW / 1000 + 10 * 365 * 86_400, NOW)).toBe(10 * 365 * 86_400_000);
  });
});

describe('malformed values are ignored, never NaN', () => {
  test.each([
    { ratelimit: 'r=abc;t=-1' },
    { ratelimit: ';;;===,,' },
    { 'x-ratelimit-remaining': 'NaN', 'x-ratelimit-reset': 'Infinity' },
    { 'x-ratelimit-reset': '1e99' },
    { 'ratelimit-policy': '"p";q=0;w=0' },
  ])('%p', (h) => {
    const hint = parseRateLimitHeaders(headers(h), NOW);
    for (const value of Object.values(hint ?? {})) expect(Number.isFinite(value)).toBe(true);
    expect(policyRate(hint)).toBeUndefined();
  });

  test('no headers: no hint', () => {
    expect(parseRateLimitHeaders(headers({}), NOW)).toBeUndefined();
  });
});
