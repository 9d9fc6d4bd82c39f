/** The rate-limit headers, read by pure functions: what each form says, and what is ignored. */
import {
  fieldParams,
  mayBeSpent,
  parseDuration,
  parseInstant,
  parseRateLimitHeaders,
} from '../../lib/policy/rate-limit-dialects';
import {
  isThrottle,
  parseRetryAfterMs,
  parseShouldRetry,
  policyRate,
  quotaSpent,
  resetToMs,
  serverWaitMs,
  spentForMs,
} from '../../lib/policy/rate-limit-headers';
import { readAnswer } from '../../lib/policy/answer';
import { EVERY_DIALECT } from '../../lib/policy/rate-limit-header-options';

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

describe("OpenAI's fields: a reset is a duration until the whole quota is back", () => {
  test.each<[string, number | undefined]>([
    ['6m0s', 360_000],
    ['1s', 1000],
    ['20ms', 20],
    ['1h2m3.5s', 3_723_500],
    ['0.5s', 500],
    ['1500us', 2],
    ['', undefined],
    ['6m0', undefined],
    ['s', undefined],
    ['-1s', undefined],
    ['1 s', undefined],
    ['1d', undefined],
  ])('duration %p is %p ms', (value, ms) => expect(parseDuration(value)).toBe(ms));

  test('a spent quota frees the next request after one request’s share of the refill', () => {
    const hint = parseRateLimitHeaders(
      headers({
        'x-ratelimit-limit-requests': '500',
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '1m0s',
      }),
      NOW,
    );
    expect(hint).toEqual({ remaining: 0, resetMs: 60_000, quota: 500, windowMs: 60_000, replenishes: true });
    expect(spentForMs(hint)).toBe(120);
    // The limit is per minute: the policy's rate is 500 a minute.
    expect(policyRate(hint)).toBeCloseTo(500 / 60);
  });

  test.each<[string, string, string, number]>([
    // The docs' example: 60 a minute, whole again in `1s`: a request is back in a second, not 1/60 of one.
    ['60', '0', '1s', 1000],
    ['60', '0', '1m0s', 1000],
    // Whole again later than a minute: the reset's own rate is the slower, 6 min ÷ 500.
    ['500', '0', '6m0s', 720],
    // Never later than the reset.
    ['60', '0', '20ms', 20],
  ])('limit %s, remaining %s, reset %s: the next request is free in %i ms', (limit, remaining, reset, ms) => {
    const hint = parseRateLimitHeaders(
      headers({
        'x-ratelimit-limit-requests': limit,
        'x-ratelimit-remaining-requests': remaining,
        'x-ratelimit-reset-requests': reset,
      }),
      NOW,
    );
    expect(spentForMs(hint)).toBe(ms);
  });

  test.each<[string, Record<string, string>, number | undefined]>([
    [
      'tokens spent, requests left (the docs’ example values): a request’s share of the tokens’ refill',
      {
        'x-ratelimit-remaining-requests': '59',
        'x-ratelimit-remaining-tokens': '0',
        'x-ratelimit-reset-tokens': '6m0s',
      },
      6000,
    ],
    [
      'tokens spent in a minute’s bucket: a request’s share of the minute',
      {
        'x-ratelimit-remaining-requests': '59',
        'x-ratelimit-remaining-tokens': '0',
        'x-ratelimit-reset-tokens': '1m0s',
      },
      1000,
    ],
    [
      'both spent: the later of the two',
      {
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-remaining-tokens': '0',
        'x-ratelimit-reset-tokens': '6m0s',
      },
      6000,
    ],
    [
      'tokens left: the requests decide',
      {
        'x-ratelimit-remaining-requests': '59',
        'x-ratelimit-remaining-tokens': '149984',
        'x-ratelimit-reset-tokens': '6m0s',
      },
      undefined,
    ],
  ])('OpenAI, 60 requests and 150000 tokens a minute, %s', (_name, fields, ms) => {
    const read = headers({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-limit-tokens': '150000',
      'x-ratelimit-reset-requests': '1s',
      ...fields,
    });
    const hint = parseRateLimitHeaders(read, NOW);
    expect(spentForMs(hint)).toBe(ms);
    expect(policyRate(hint)).toBe(1);
  });

  test('without the limit, the whole reset', () => {
    const hint = parseRateLimitHeaders(
      headers({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '6m0s' }),
      NOW,
    );
    expect(spentForMs(hint)).toBe(360_000);
  });
});

describe("Anthropic's fields: a reset is an RFC 3339 time", () => {
  test('read against the clock', () => {
    const hint = parseRateLimitHeaders(
      headers({
        'anthropic-ratelimit-requests-limit': '50',
        'anthropic-ratelimit-requests-remaining': '0',
        'anthropic-ratelimit-requests-reset': new Date(NOW + 30_000).toISOString(),
      }),
      NOW,
    );
    expect(hint).toEqual({ remaining: 0, resetMs: 30_000, quota: 50, windowMs: 60_000, replenishes: true });
    // 50 a minute: one request's share of the minute, 1.2 s (within the reset).
    expect(spentForMs(hint)).toBe(1200);
  });

  test('spent input tokens, requests left: a request’s share of the minute, never later than the latest spent reset', () => {
    const hint = parseRateLimitHeaders(
      headers({
        'anthropic-ratelimit-requests-limit': '50',
        'anthropic-ratelimit-requests-remaining': '49',
        'anthropic-ratelimit-requests-reset': new Date(NOW + 1_200).toISOString(),
        'anthropic-ratelimit-input-tokens-limit': '30000',
        'anthropic-ratelimit-input-tokens-remaining': '0',
        'anthropic-ratelimit-input-tokens-reset': new Date(NOW + 800).toISOString(),
        'anthropic-ratelimit-output-tokens-limit': '8000',
        'anthropic-ratelimit-output-tokens-remaining': '8000',
        'anthropic-ratelimit-output-tokens-reset': new Date(NOW + 60_000).toISOString(),
      }),
      NOW,
    );
    expect(hint).toMatchObject({ remaining: 0, resetMs: 800, quota: 50 });
    expect(spentForMs(hint)).toBe(800);
  });

  test.each<[string, number | undefined]>([
    ['2026-12-03T06:00:30Z', 30_000],
    ['2026-12-03T07:00:30+01:00', 30_000],
    ['2026-12-03T06:00:30.250Z', 30_250],
    ['2026-12-03T05:00:00Z', 0],
    ['2026-12-03 06:00:30Z', 30_000],
    ['Thu, 03 Dec 2026 06:00:30 GMT', undefined],
    ['2026-12-03', undefined],
    ['1733205630', undefined],
    ['2026-13-45T99:99:99Z', undefined],
  ])('%p is %p ms from now', (value, ms) => expect(parseInstant(value, NOW)).toBe(ms));
});

describe('which answers are throttles', () => {
  const spent = { remaining: 0, resetMs: 60_000 };
  test.each<[number, number | undefined, object | undefined, boolean]>([
    [429, undefined, undefined, true],
    [403, undefined, spent, true],
    [403, 60_000, undefined, true],
    [403, undefined, undefined, false],
    [403, undefined, { remaining: 3, resetMs: 60_000 }, false],
    [503, 1000, undefined, true],
    [503, undefined, undefined, false],
    [529, 1000, undefined, true],
    [529, undefined, undefined, false],
    [500, 1000, spent, false],
    [200, undefined, spent, false],
  ])('%i with wait %p and hint %p: %p', (status, wait, hint, throttle) =>
    expect(isThrottle(status, wait, hint)).toBe(throttle),
  );

  test('every dialect that can say "spent" is looked for on a success', () => {
    for (const name of [
      'ratelimit',
      'ratelimit-remaining',
      'x-ratelimit-remaining',
      'x-ratelimit-remaining-requests',
      'anthropic-ratelimit-requests-remaining',
    ]) {
      expect(mayBeSpent({ [name]: '0' })).toBe(true);
    }
    expect(mayBeSpent({ 'content-type': 'text/plain', 'x-ratelimit-limit': '60' })).toBe(false);
  });
});

describe('malformed values are ignored, never NaN', () => {
  test.each([
    { ratelimit: 'r=abc;t=-1' },
    { ratelimit: ';;;===,,' },
    { 'x-ratelimit-remaining': 'NaN', 'x-ratelimit-reset': 'Infinity' },
    { 'x-ratelimit-reset': '1e99' },
    { 'ratelimit-policy': '"p";q=0;w=0' },
    { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1e3s', 'x-ratelimit-limit-requests': '0' },
    { 'anthropic-ratelimit-requests-remaining': '-1', 'anthropic-ratelimit-requests-reset': 'soon' },
  ])('%p', (h) => {
    const hint = parseRateLimitHeaders(headers(h), NOW);
    for (const value of Object.values(hint ?? {})) if (value !== true) expect(Number.isFinite(value)).toBe(true);
    expect(policyRate(hint)).toBeUndefined();
    const waitMs = spentForMs(hint);
    if (waitMs !== undefined) expect(Number.isFinite(waitMs)).toBe(true);
  });

  test('no headers: no hint', () => {
    expect(parseRateLimitHeaders(headers({}), NOW)).toBeUndefined();
  });
});

describe('reading an answer', () => {
  const failed = (status: number, headers: unknown) => ({ error: { response: { status, headers } } });

  test("a failure's fields are read in any case (a custom adapter's plain object)", () => {
    const answer = readAnswer(failed(503, { 'Retry-After': '2', 'X-Should-Retry': 'false' }), NOW, EVERY_DIALECT);
    expect(answer).toMatchObject({ status: 503, waitMs: 2000, says: false, throttle: true, hintless: false });
    const limited = readAnswer(
      failed(429, { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '60' }),
      NOW,
      EVERY_DIALECT,
    );
    expect(limited).toMatchObject({ throttle: true, spent: true, spentForMs: 60_000, hintless: false });
  });

  test('a failure without a wait or a rate-limit field: a 429 is a bare throttle, a 503 no throttle', () => {
    const plain = { 'content-type': 'application/json', 'content-length': '2' };
    expect(readAnswer(failed(429, plain), NOW, EVERY_DIALECT)).toMatchObject({
      throttle: true,
      hintless: true,
      waitMs: undefined,
      hint: undefined,
    });
    expect(readAnswer(failed(503, plain), NOW, EVERY_DIALECT)).toMatchObject({ throttle: false, hintless: false });
    // An adapter that gives no headers at all: the status alone speaks.
    expect(readAnswer(failed(429, undefined), NOW, EVERY_DIALECT)).toMatchObject({ throttle: true, hintless: true });
  });

  test("every field an answer is read for has 'ratelimit' or 'retry' in its name (a failure is looked at for those)", () => {
    const asked: string[] = [];
    const recording = (name: string): undefined => {
      asked.push(name);
      return undefined;
    };
    parseRateLimitHeaders(recording, NOW);
    serverWaitMs(recording, NOW);
    asked.push('x-should-retry', 'stripe-should-retry', 'x-ratelimit-resource');
    expect(asked.length).toBeGreaterThan(10);
    for (const name of asked) expect(name).toMatch(/ratelimit|retry/);
  });
});
