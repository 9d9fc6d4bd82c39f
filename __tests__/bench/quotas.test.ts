// bench:never-worse measures the plugin against these answers; a header that says something else
// than the vendor's documentation would make every figure in it answer another question.
import { duration, take } from '../../bench/quotas';
import type { Dialect, QuotaState } from '../../bench/quotas';

const quota = (dialect: Dialect, limit: number, remaining: number, windowMs: number, resetAt: number): QuotaState => ({
  dialect,
  path: '/',
  limit,
  remaining,
  windowMs,
  resetAt,
  status: dialect === 'github' ? 403 : 429,
});

describe('duration (OpenAI x-ratelimit-reset-requests)', () => {
  it('writes minutes and seconds as OpenAI does', () => {
    expect([360_000, 1000, 720, 90_500].map(duration)).toEqual(['6m0s', '1s', '720ms', '1m30.5s']);
  });
});

describe('take', () => {
  it('GitHub: a spent window is a 403 with the reset in epoch seconds, and the next window is full', () => {
    const q = { ...quota('github', 30, 0, 60_000, 45_000), resource: 'search' };
    const spent = take(q, 1000);
    expect([spent.ok, spent.status]).toEqual([false, 403]);
    expect(spent.headers).toEqual({
      'x-ratelimit-limit': '30',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-used': '30',
      'x-ratelimit-reset': '45',
      'x-ratelimit-resource': 'search',
    });
    expect(spent.body).toContain('API rate limit exceeded');
    const next = take(q, 45_000);
    expect([next.ok, next.headers['x-ratelimit-remaining'], next.headers['x-ratelimit-reset']]).toEqual([
      true,
      '29',
      '105',
    ]);
  });

  it('OpenAI: empty when the first request comes, one request back after 6 min / 500, the reset the time to full', () => {
    const q = quota('openai', 500, 0, 360_000, 0);
    const first = take(q, 10_000);
    expect([first.ok, first.headers['x-ratelimit-reset-requests'], first.headers['retry-after']]).toEqual([
      false,
      '6m0s',
      undefined,
    ]);
    expect(take(q, 10_700).ok).toBe(false);
    const back = take(q, 10_720);
    expect([back.ok, back.headers['x-ratelimit-remaining-requests']]).toEqual([true, '0']);
  });

  it('Anthropic: a 429 with retry-after in whole seconds and the reset in RFC 3339', () => {
    const spent = take(quota('anthropic', 50, 0, 60_000, Date.UTC(2026, 0, 1, 0, 0, 15)), Date.UTC(2026, 0, 1));
    expect([spent.status, spent.headers['retry-after']]).toEqual([429, '15']);
    expect(spent.headers['anthropic-ratelimit-requests-reset']).toBe('2026-01-01T00:00:15Z');
  });

  it('IETF: r counts down within the window, t is the whole seconds to its end, and the window refills', () => {
    const q = quota('ietf', 3, 3, 1000, 1000);
    const answers = [100, 200, 300, 400, 1000].map((now) => take(q, now));
    expect(answers.map((a) => [a.status, a.headers['ratelimit']])).toEqual([
      [200, '"default";r=2;t=1'],
      [200, '"default";r=1;t=1'],
      [200, '"default";r=0;t=1'],
      [429, '"default";r=0;t=1'],
      [200, '"default";r=2;t=1'],
    ]);
    expect(answers[0]!.headers['ratelimit-policy']).toBe('"default";q=3;w=1');
  });
});
