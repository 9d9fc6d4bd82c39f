/**
 * Every jitter strategy, for any retry number up to 1,000 and any valid options (and a broken
 * random source): a whole number of ms, finite, in [0, maxDelayMs] (decorrelated in
 * [baseDelayMs, maxDelayMs]), never NaN, never a timer past 2^31 - 1 ms.
 */
import fc from 'fast-check';
import { computeBackoff, exponentialCeiling } from '../../lib/policy/backoff';
import type { BackoffInput } from '../../lib/policy/backoff';
import { MAX_TIMER_MS, resolvePluginOptions } from '../../lib/policy/options';
import type { JitterStrategy } from '../../lib';

const STRATEGIES: JitterStrategy[] = ['full', 'equal', 'decorrelated', 'none'];

/** Options resolvePluginOptions accepts: 0 <= base <= max <= 2^31 - 1. */
const delays = fc
  .tuple(fc.double({ min: 0, max: MAX_TIMER_MS, noNaN: true }), fc.double({ min: 0, max: MAX_TIMER_MS, noNaN: true }))
  .map(([a, b]) => ({ baseDelayMs: Math.min(a, b), maxDelayMs: Math.max(a, b) }));
const smallDelays = fc
  .tuple(fc.nat(1000), fc.nat(100_000))
  .map(([a, b]) => ({ baseDelayMs: Math.min(a, b), maxDelayMs: Math.max(a, b) }));

/** A well-behaved source, and the kinds of broken one a user might inject. */
const random = fc.oneof(
  fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }).map((r) => () => r),
  fc.constantFrom(NaN, 1, -0.5, 2, Infinity, -Infinity, 1 - Number.EPSILON).map((r) => () => r),
);

const input = fc
  .tuple(fc.integer({ min: 0, max: 1000 }), fc.oneof(delays, smallDelays), fc.double({ min: 0, max: 1, noNaN: true }))
  .map(([retry, d, p]): BackoffInput => ({
    retry,
    ...d,
    // The engine passes max(previous wait, base); any value from base up to the cap (and past it) is possible.
    previousDelayMs: d.baseDelayMs + p * (2 * d.maxDelayMs - d.baseDelayMs),
  }));

test.each(STRATEGIES)('%s: a whole number of ms in range for any retry up to 1,000', (strategy) => {
  fc.assert(
    fc.property(input, random, (options, rand) => {
      // Validated by the real option resolver, so "valid options" means what users can pass.
      resolvePluginOptions({ jitter: strategy, baseDelayMs: options.baseDelayMs, maxDelayMs: options.maxDelayMs });
      const ms = computeBackoff(strategy, options, rand);
      expect(Number.isInteger(ms)).toBe(true);
      expect(ms).toBeGreaterThanOrEqual(strategy === 'decorrelated' ? Math.floor(options.baseDelayMs) : 0);
      expect(ms).toBeLessThanOrEqual(options.maxDelayMs);
      expect(ms).toBeLessThanOrEqual(MAX_TIMER_MS);
      if (strategy !== 'decorrelated') expect(ms).toBeLessThanOrEqual(exponentialCeiling(options));
      if (strategy === 'none') expect(ms).toBe(Math.floor(exponentialCeiling(options)));
    }),
    { numRuns: 2000 },
  );
});

test('full and equal jitter reach the cap by the 1,000th retry and never pass it', () => {
  fc.assert(
    fc.property(
      smallDelays.filter((d) => d.baseDelayMs > 0),
      (d) => {
        const top = { retry: 1000, ...d };
        expect(computeBackoff('none', top, () => 0.5)).toBe(Math.floor(d.maxDelayMs));
        expect(computeBackoff('equal', top, () => 1 - Number.EPSILON)).toBeLessThanOrEqual(d.maxDelayMs);
        expect(computeBackoff('full', top, () => 0)).toBe(0);
      },
    ),
  );
});

test('a maxDelayMs past 2^31 - 1 (a timer Node would fire at once) is refused, naming the field', () => {
  fc.assert(
    fc.property(fc.double({ min: MAX_TIMER_MS + 1, max: 1e300, noNaN: true }), (maxDelayMs) => {
      expect(() => resolvePluginOptions({ maxDelayMs })).toThrow(
        new TypeError(`axios-resilience: maxDelayMs must be at most ${MAX_TIMER_MS} (2^31 - 1), got ${maxDelayMs}`),
      );
    }),
    { numRuns: 200 },
  );
});
