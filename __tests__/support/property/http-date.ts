/**
 * The three HTTP-date forms of RFC 9110 §5.6.7, formatted from UTC fields only, and the
 * round-trip property the parser must satisfy. Shared by the in-process test and the child
 * processes that run it under other time zones (tz-runner.ts).
 */
import fc from 'fast-check';
import { parseHttpDate, parseRetryAfter } from '../../../lib/policy/retry-after';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
const time = (d: Date): string => `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;

/** `Sun, 06 Nov 1994 08:49:37 GMT` */
export function imfFixdate(d: Date): string {
  return `${DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCFullYear(), 4)} ${time(d)} GMT`;
}

/** `Sunday, 06-Nov-94 08:49:37 GMT` */
export function rfc850(d: Date): string {
  const yy = pad(d.getUTCFullYear() % 100);
  return `${LONG_DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${yy} ${time(d)} GMT`;
}

/** `Sun Nov  6 08:49:37 1994` (day space-padded; no zone, meaning UTC) */
export function asctime(d: Date): string {
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${time(d)} ${pad(d.getUTCFullYear(), 4)}`;
}

/** Whole seconds in [min, max], as a Date. */
const wholeSecondDate = (min: number, max: number) =>
  fc.integer({ min: Math.ceil(min / 1000), max: Math.floor(max / 1000) }).map((s) => new Date(s * 1000));

// From year 0 (a Date.UTC pitfall maps 0-99 to 1900-1999; the parser must not fall into it).
const YEAR_0 = new Date('0000-01-01T00:00:00Z').getTime();
const YEAR_9999_END = Date.UTC(9999, 11, 31, 23, 59, 59);

/**
 * Every valid date in each form parses to the instant it names, and as a Retry-After it asks
 * for that instant minus now, within a second (0 when it is past).
 */
export function checkHttpDateRoundTrip(numRuns: number): void {
  const now = fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2200, 0, 1) });

  fc.assert(
    fc.property(wholeSecondDate(YEAR_0, YEAR_9999_END), now, (date, nowMs) => {
      for (const text of [imfFixdate(date), asctime(date)]) {
        if (parseHttpDate(text, nowMs) !== date.getTime()) return false;
        const wait = parseRetryAfter(text, nowMs);
        if (wait === undefined || Math.abs(wait - Math.max(0, date.getTime() - nowMs)) > 1000) return false;
      }
      return true;
    }),
    { numRuns },
  );

  // RFC 850 has a two-digit year: RFC 9110 reads one more than 50 years ahead as the past century,
  // so only dates from 49 years back to 49 years ahead name themselves, wherever in its century
  // the clock is.
  fc.assert(
    fc.property(
      now,
      fc.integer({ min: -49 * 365, max: 49 * 365 }),
      fc.integer({ min: 0, max: 86399 }),
      (nowMs, days, s) => {
        const date = new Date(Math.floor(nowMs / 86_400_000) * 86_400_000 + days * 86_400_000 + s * 1000);
        const text = rfc850(date);
        if (parseHttpDate(text, nowMs) !== date.getTime()) return false;
        const wait = parseRetryAfter(text, nowMs);
        return wait !== undefined && Math.abs(wait - Math.max(0, date.getTime() - nowMs)) <= 1000;
      },
    ),
    { numRuns },
  );
}
