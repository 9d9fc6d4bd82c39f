/**
 * parseRetryAfter over arbitrary input: the result is undefined or a whole, safe number of ms
 * >= 0; the engine's wait after clamping is <= maxDelayMs; valid HTTP-dates in all three forms
 * round-trip within a second, in three time zones.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import axios from 'axios';
import type { AxiosResponse } from 'axios';
import fc from 'fast-check';
import { retryPlugin } from '../../lib';
import { parseRetryAfter } from '../../lib/policy/retry-after';
import { asctime, checkHttpDateRoundTrip, imfFixdate, rfc850 } from '../support/property/http-date';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

/** Anything a server, a proxy or an attacker might put in the header. */
const headerValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.bigInt({ min: -(10n ** 400n), max: 10n ** 400n }).map(String),
  fc.stringMatching(/^\d{1,400}$/),
  fc
    .tuple(fc.stringMatching(/^[ \t\u00a0\u3000\n]{0,4}$/), fc.nat(), fc.stringMatching(/^[ \t\u00a0\u3000\n]{0,4}$/))
    .map(([a, n, b]) => `${a}${n}${b}`),
  fc
    .tuple(fc.date({ noInvalidDate: true }), fc.constantFrom(imfFixdate, rfc850, asctime))
    .map(([d, format]) => format(d)),
  fc.constantFrom('-1', '+5', '1e9', '0x10', '2.5', '١٢', '５', 'Infinity', 'NaN', '', ' ', '0', '00', '-0'),
);

test('any value: undefined or a whole number of ms, >= 0, never NaN or Infinity', () => {
  fc.assert(
    fc.property(headerValue, fc.integer({ min: 0, max: 8.64e15 }), (value, now) => {
      const ms = parseRetryAfter(value, now);
      return ms === undefined || (Number.isSafeInteger(ms) && ms >= 0);
    }),
    { numRuns: 3000 },
  );
});

test('delay-seconds: the digits times 1000 (capped at MAX_SAFE_INTEGER), decimals rounded to a ms; anything with a sign, unit or exponent is invalid', () => {
  fc.assert(
    fc.property(fc.stringMatching(/^\d{1,30}$/), (digits) => {
      expect(parseRetryAfter(digits)).toBe(Math.min(Number(digits) * 1000, Number.MAX_SAFE_INTEGER));
      expect(parseRetryAfter(` ${digits}\t`)).toBe(parseRetryAfter(digits));
      expect(parseRetryAfter(`${digits}.5`)).toBe(
        Math.min(Math.round(Number(`${digits}.5`) * 1000), Number.MAX_SAFE_INTEGER),
      );
      for (const bad of [`-${digits}`, `+${digits}`, `${digits}.5s`, `${digits}e1`, `0x${digits}`, `${digits}.`]) {
        expect(parseRetryAfter(bad)).toBeUndefined();
      }
    }),
    { numRuns: 500 },
  );
});

test('through the engine, any Retry-After gives a wait in [0, maxDelayMs]: the server value clamped, or the backoff', async () => {
  await fc.assert(
    fc.asyncProperty(
      headerValue.filter((v) => !/[\r\n]/.test(v)),
      fc.integer({ min: 1, max: 1000 }),
      async (value, maxDelayMs) => {
        const controller = new AbortController();
        const waits: Array<{ delayMs: number; delaySource: string }> = [];
        const plugin = retryPlugin({
          baseDelayMs: 1,
          maxDelayMs,
          random: () => 0.5,
          breaker: false,
          budget: false,
          // Record the chosen wait and cancel, so no property run waits for real.
          onRetry: ({ delayMs, delaySource }) => {
            waits.push({ delayMs, delaySource });
            controller.abort();
          },
        });
        const client = axios.create({
          adapter: (config) =>
            Promise.reject(
              new axios.AxiosError('unavailable', 'ERR_BAD_RESPONSE', config, undefined, {
                status: 503,
                statusText: 'Service Unavailable',
                headers: { 'retry-after': value },
                config,
                data: '',
              } as AxiosResponse),
            ),
        });
        plugin.install(client);
        await client.get('http://api.test/x', { signal: controller.signal }).catch(() => undefined);
        await plugin.close();
        expect(waits).toHaveLength(1);
        const [{ delayMs, delaySource }] = waits as [{ delayMs: number; delaySource: string }];
        expect(Number.isSafeInteger(delayMs) && delayMs >= 0 && delayMs <= maxDelayMs).toBe(true);
        const asked = parseRetryAfter(value);
        if (asked !== undefined && asked > 1000) {
          // Far enough ahead that the clock moving during the call cannot change the answer.
          expect({ delayMs, delaySource }).toEqual({
            delayMs: Math.min(asked, maxDelayMs),
            delaySource: 'retry-after',
          });
        } else if (asked === undefined || asked === 0) {
          expect(delaySource).toBe('backoff');
        }
      },
    ),
    { numRuns: 300 },
  );
});

describe('HTTP-dates in all three forms round-trip within a second', () => {
  test(`in this process's time zone (${Intl.DateTimeFormat().resolvedOptions().timeZone})`, () => {
    checkHttpDateRoundTrip(1000);
  });

  // V8 reads TZ once per process and jest's sandboxed process.env does not reach it, so each zone
  // gets a child process; it reports its offsets so the test knows the zone really changed.
  test.each([
    ['America/New_York', { january: 300, july: 240 }],
    ['Asia/Kolkata', { january: -330, july: -330 }],
  ])('under TZ=%s', async (tz, offsets) => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, '..', 'support', 'property', 'tz-runner.ts'), '1000'],
      { cwd: ROOT, env: { ...process.env, TZ: tz }, timeout: 30_000 },
    );
    expect(JSON.parse(stdout)).toEqual({ tz, offsets });
  });
});
