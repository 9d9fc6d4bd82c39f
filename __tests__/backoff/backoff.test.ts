import { computeBackoff } from '../../lib/policy/backoff';

const opts = { baseDelayMs: 500, maxDelayMs: 30000 };
const fixed = (r: number) => () => r;

describe('full jitter', () => {
  test('is random() * min(cap, base * 2^retry), retry counting from 0', () => {
    expect(computeBackoff('full', { ...opts, retry: 0 }, fixed(0.5))).toBe(250);
    expect(computeBackoff('full', { ...opts, retry: 1 }, fixed(0.5))).toBe(500);
    expect(computeBackoff('full', { ...opts, retry: 3 }, fixed(0.25))).toBe(1000);
    expect(computeBackoff('full', { ...opts, retry: 10 }, fixed(0.5))).toBe(15000);
  });

  test('spans [0, ceiling): 0 at random() = 0, just under the ceiling near 1', () => {
    expect(computeBackoff('full', { ...opts, retry: 2 }, fixed(0))).toBe(0);
    expect(computeBackoff('full', { ...opts, retry: 2 }, fixed(0.999999))).toBe(1999);
  });
});

describe('equal jitter', () => {
  test('keeps half of the ceiling fixed and randomises the other half', () => {
    expect(computeBackoff('equal', { ...opts, retry: 1 }, fixed(0))).toBe(500);
    expect(computeBackoff('equal', { ...opts, retry: 1 }, fixed(0.5))).toBe(750);
  });
});

describe('decorrelated jitter', () => {
  test('is min(cap, random_between(base, previous * 3))', () => {
    expect(computeBackoff('decorrelated', { ...opts, retry: 0, previousDelayMs: 500 }, fixed(0))).toBe(500);
    expect(computeBackoff('decorrelated', { ...opts, retry: 0, previousDelayMs: 500 }, fixed(0.5))).toBe(1000);
    expect(computeBackoff('decorrelated', { ...opts, retry: 5, previousDelayMs: 20000 }, fixed(0.99))).toBe(29705);
  });

  test('starts from the base when there is no previous delay', () => {
    expect(computeBackoff('decorrelated', { ...opts, retry: 0 }, fixed(0.5))).toBe(1000);
  });
});

describe('no jitter', () => {
  test('is min(cap, base * 2^retry)', () => {
    expect(computeBackoff('none', { ...opts, retry: 0 }, fixed(0.5))).toBe(500);
    expect(computeBackoff('none', { ...opts, retry: 4 }, fixed(0.5))).toBe(8000);
    expect(computeBackoff('none', { ...opts, retry: 6 }, fixed(0.5))).toBe(30000);
  });
});

describe('every strategy', () => {
  const strategies = ['full', 'equal', 'decorrelated', 'none'] as const;

  test.each(strategies)('%s stays finite and within [0, cap] for huge retry counts and a zero base', (strategy) => {
    for (const retry of [0, 1, 30, 1023, 1024, 5000]) {
      for (const baseDelayMs of [0, 1, 500]) {
        const delay = computeBackoff(strategy, { retry, baseDelayMs, maxDelayMs: 30000 }, fixed(0.7));
        expect(Number.isFinite(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(30000);
      }
    }
  });

  test.each(strategies)('%s survives a broken random source (NaN, negative, >= 1)', (strategy) => {
    for (const r of [Number.NaN, -1, 1, 7]) {
      const delay = computeBackoff(strategy, { retry: 3, ...opts }, fixed(r));
      expect(Number.isFinite(delay)).toBe(true);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(30000);
    }
  });
});
