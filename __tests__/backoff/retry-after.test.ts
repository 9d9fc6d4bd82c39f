import { parseHttpDate, parseRetryAfter } from '../../lib/policy/retry-after';

const NOW = Date.UTC(1994, 10, 6, 8, 49, 0); // Sun, 06 Nov 1994 08:49:00 GMT

describe('parseRetryAfter', () => {
  test('reads delay-seconds as milliseconds', () => {
    expect(parseRetryAfter('2', NOW)).toBe(2000);
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter('86400', NOW)).toBe(86_400_000);
  });

  test('trims surrounding whitespace', () => {
    expect(parseRetryAfter('  3 ', NOW)).toBe(3000);
  });

  test('reads decimal seconds, as undici and both peer libraries do', () => {
    expect(parseRetryAfter('1.5', NOW)).toBe(1500);
    expect(parseRetryAfter('0.25', NOW)).toBe(250);
    expect(parseRetryAfter(' 2.5 ', NOW)).toBe(2500);
  });

  test.each(['', '   ', '-1', '-1.5', '1.5s', '.5', '1.', '1.2.3', '1e9', '0x10', '3s', 'soon', '+5', '５', '1,2'])(
    'treats %p as absent',
    (value) => {
      expect(parseRetryAfter(value, NOW)).toBeUndefined();
    },
  );

  test('treats a missing header as absent', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });

  test('caps an absurd number of seconds instead of returning Infinity', () => {
    const ms = parseRetryAfter('9'.repeat(400), NOW);
    expect(ms).toBe(Number.MAX_SAFE_INTEGER);
  });

  test('reads all three HTTP-date forms as UTC', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(37_000);
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(37_000);
    expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', NOW)).toBe(37_000);
  });

  test.each([
    ['IMF-fixdate', 'Sun, 06 Nov 1994 08:49:37 GMT'],
    ['IMF-fixdate with UTC', 'Sun, 06 Nov 1994 08:49:37 UTC'],
    ['IMF-fixdate with a one-digit day', 'Sun, 6 Nov 1994 08:49:37 GMT'],
    ['RFC 850 (obsolete)', 'Sunday, 06-Nov-94 08:49:37 GMT'],
    ['RFC 850 with UTC', 'Sunday, 06-Nov-94 08:49:37 UTC'],
    ['asctime (obsolete)', 'Sun Nov  6 08:49:37 1994'],
  ])('reads what servers send: %s', (_form, value) => {
    expect(parseRetryAfter(value, NOW)).toBe(37_000);
  });

  test('gives 0 for a date in the past', () => {
    expect(parseRetryAfter('Sat, 05 Nov 1994 08:49:37 GMT', NOW)).toBe(0);
  });

  test('rejects dates that do not exist or are malformed', () => {
    expect(parseRetryAfter('Sun, 31 Feb 1994 08:49:37 GMT', NOW)).toBeUndefined();
    expect(parseRetryAfter('Sun, 06 Foo 1994 08:49:37 GMT', NOW)).toBeUndefined();
    expect(parseRetryAfter('Sun, 06 Nov 1994 25:49:37 GMT', NOW)).toBeUndefined();
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 PST', NOW)).toBeUndefined();
  });

  test('a far-future date stays finite (the engine clamps it)', () => {
    const ms = parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', NOW);
    expect(Number.isInteger(ms)).toBe(true);
    expect(ms).toBeGreaterThan(0);
  });
});

describe('parseHttpDate', () => {
  test('places an RFC 850 two-digit year within 50 years of now', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(new Date(parseHttpDate('Monday, 01-Jan-74 00:00:00 GMT', now)!).getUTCFullYear()).toBe(2074);
    expect(new Date(parseHttpDate('Friday, 01-Jan-77 00:00:00 GMT', now)!).getUTCFullYear()).toBe(1977);
  });
});

describe('HTTP-date year edges', () => {
  test('RFC 850: in the second half of a century, a small two-digit year is the next century', () => {
    // Clock in 2090: "05" is 15 years ahead (2105), not 85 years back (2005).
    expect(parseHttpDate('Sunday, 06-Nov-05 08:49:37 GMT', Date.UTC(2090, 0, 1))).toBe(
      Date.UTC(2105, 10, 6, 8, 49, 37),
    );
    // Clock in 1971: "00" is 2000 (29 years ahead), not 1900.
    expect(parseHttpDate('Saturday, 01-Jan-00 00:00:00 GMT', Date.UTC(1971, 0, 1))).toBe(Date.UTC(2000, 0, 1));
  });

  test('IMF-fixdate and asctime: years 0-99 are those years, not 1900-1999', () => {
    const year50 = new Date('0050-01-01T00:00:00Z').getTime();
    expect(parseHttpDate('Sat, 01 Jan 0050 00:00:00 GMT')).toBe(year50);
    expect(parseHttpDate('Sat Jan  1 00:00:00 0050')).toBe(year50);
  });
});
