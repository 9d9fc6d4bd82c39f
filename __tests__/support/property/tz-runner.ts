/**
 * Runs the HTTP-date round trip in this process's time zone (set TZ before starting it: V8 reads
 * the zone once) and prints the zone's offsets next to the result, so the caller can check the
 * zone really changed.
 */
import { checkHttpDateRoundTrip } from './http-date';

const offsets = {
  january: new Date(2024, 0, 15).getTimezoneOffset(),
  july: new Date(2024, 6, 15).getTimezoneOffset(),
};
let failure: string | undefined;
try {
  checkHttpDateRoundTrip(Number(process.argv[2] ?? 500));
} catch (error) {
  failure = error instanceof Error ? error.message : String(error);
}
process.stdout.write(JSON.stringify({ tz: process.env.TZ, offsets, failure }));
