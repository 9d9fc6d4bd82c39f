/**
 * `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date in any of its three forms.
 * The parser only reads the header; what to do with a `0` or a value past the cap is the engine's.
 */

// delay-seconds is an integer in RFC 9110, but servers send `1.5` and undici, axios-retry and
// retry-axios all read it; a unit (`1.5s`), a sign or an exponent is still not a delay.
const DELAY_SECONDS = /^\d+(?:\.\d+)?$/;
const MONTHS: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};
// IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT. Servers also write `UTC` for the zone (a formatter's
// toUTCString-like output) and a one-digit day (RFC 5322's date); both peers read them (through Date.parse).
const IMF_FIXDATE = /^[A-Za-z]{3}, (\d{1,2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) (?:GMT|UTC)$/;
// RFC 850 (obsolete): Sunday, 06-Nov-94 08:49:37 GMT, or UTC.
const RFC_850 = /^[A-Za-z]{6,9}, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) (?:GMT|UTC)$/;
// asctime: Sun Nov  6 08:49:37 1994 (the day is space-padded). It has no zone and means UTC; V8's
// Date.parse would read it as local time, which is why none of these forms goes through Date.parse.
const ASCTIME = /^[A-Za-z]{3} ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

function utc(year: number, month: string, day: number, h: number, m: number, s: number): number | undefined {
  const monthIndex = MONTHS[month.toLowerCase()];
  if (monthIndex === undefined || day < 1 || day > 31 || h > 23 || m > 59 || s > 60) return undefined;
  // Date.UTC reads years 0-99 as 1900-1999; setUTCFullYear takes the year as given.
  const ms = new Date(Date.UTC(2000, monthIndex, day, h, m, Math.min(s, 59))).setUTCFullYear(year);
  // Date.UTC rolls 31 Feb over into March; a date that does not exist is not a date.
  return new Date(ms).getUTCDate() === day ? ms : undefined;
}

/** Milliseconds since the epoch for an HTTP-date, or `undefined` when `value` is not one. */
export function parseHttpDate(value: string, nowMs: number = Date.now()): number | undefined {
  let match = IMF_FIXDATE.exec(value);
  if (match) {
    const [, day, month, year, h, m, s] = match as unknown as string[];
    return utc(Number(year), month!, Number(day), Number(h), Number(m), Number(s));
  }
  match = RFC_850.exec(value);
  if (match) {
    const [, day, month, yy, h, m, s] = match as unknown as string[];
    // RFC 9110: a two-digit year more than 50 years in the future means the most recent past
    // year with those digits.
    const nowYear = new Date(nowMs).getUTCFullYear();
    let year = Math.floor(nowYear / 100) * 100 + Number(yy);
    if (year > nowYear + 50) year -= 100;
    else if (year <= nowYear - 50) year += 100;
    return utc(year, month!, Number(day), Number(h), Number(m), Number(s));
  }
  match = ASCTIME.exec(value);
  if (match) {
    const [, month, day, h, m, s, year] = match as unknown as string[];
    return utc(Number(year), month!, Number(day!.trim()), Number(h), Number(m), Number(s));
  }
  return undefined;
}

/**
 * The wait a `Retry-After` value asks for, in whole milliseconds, from delay-seconds or an HTTP-date
 * in any of RFC 9110's forms (IMF-fixdate, and the obsolete RFC 850 and asctime), `UTC` read as
 * `GMT`: `0` for `"0"` and for a date in the past, `undefined` when the value is absent or not a valid delay-seconds or HTTP-date
 * (negative, hex, exponent, a unit, junk); decimal seconds are read (`'1.5'` is 1500). Never NaN, never negative; an absurdly large value
 * is capped at `Number.MAX_SAFE_INTEGER` (the engine clamps it to `maxDelayMs` anyway).
 */
export function parseRetryAfter(value: string | undefined, nowMs: number = Date.now()): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (DELAY_SECONDS.test(text)) {
    return Math.min(Math.round(Number(text) * 1000), Number.MAX_SAFE_INTEGER);
  }
  const at = parseHttpDate(text, nowMs);
  if (at === undefined) return undefined;
  return Math.min(Math.max(0, Math.ceil(at - nowMs)), Number.MAX_SAFE_INTEGER);
}
