// The intervals docs/performance.md reports come from these functions; a wrong rank here would
// make every "met" and "missed" in that page wrong, so they are checked against counts by hand
// and against brute force.
import { medianInterval, ratioInterval, shiftInterval } from '../../bench/stats';

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('medianInterval (rounds of one process)', () => {
  it('spans the 42nd to the 59th of 100 values, with 91.1 % coverage', () => {
    const m = medianInterval(range(1, 100).reverse());
    expect([m.median, m.low, m.high]).toEqual([50.5, 42, 59]);
    expect(m.coverage).toBeCloseTo(0.911, 3);
  });
});

describe('shiftInterval (one value per process)', () => {
  it('is the median of the pairwise differences, with the exact 4 × 4 interval [d(2), d(15)]', () => {
    // Differences 10 + (i − j): 7 once, 8 twice, …, 13 once; P(U ≤ 1) = 2/70 leaves 94.3 %.
    const m = shiftInterval([11, 12, 13, 14], [1, 2, 3, 4]);
    expect([m.median, m.low, m.high]).toEqual([10, 8, 12]);
    expect(m.coverage).toBeCloseTo(1 - 4 / 70, 10);
  });

  it('gives no finite interval when there are too few processes for 90 %', () => {
    const m = shiftInterval([5, 6], [1, 2]);
    expect([m.low, m.high]).toEqual([NaN, NaN]);
  });

  it('matches a brute-force Mann–Whitney distribution for 8 × 7', () => {
    const m = 8;
    const n = 7;
    // Every way to choose which of the m + n ranks are the x's, and the U each gives.
    const counts = new Map<number, number>();
    const choose = (start: number, left: number, picked: number[]): void => {
      if (left === 0) {
        let u = 0;
        for (const rank of picked) u += rank - picked.indexOf(rank); // y's below this x
        counts.set(u, (counts.get(u) ?? 0) + 1);
        return;
      }
      for (let r = start; r <= m + n - left; r++) choose(r + 1, left - 1, [...picked, r]);
    };
    choose(0, m, []);
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    let k = 0;
    let below = 0;
    while (1 - (2 * (below + (counts.get(k) ?? 0))) / total >= 0.9) below += counts.get(k++) ?? 0;
    // Distinct differences, so the interval's ends name the ranks: x = 100·i, y = j.
    const xs = range(1, m).map((i) => 100 * i);
    const ys = range(1, n);
    const diffs = xs.flatMap((x) => ys.map((y) => x - y)).sort((a, b) => a - b);
    const got = shiftInterval(xs, ys);
    expect(got.coverage).toBeCloseTo(1 - (2 * below) / total, 12);
    expect([got.low, got.high]).toEqual([diffs[k - 1], diffs[m * n - k]]);
    expect(got.coverage).toBeGreaterThanOrEqual(0.9);
  });
});

describe('ratioInterval', () => {
  it('reports the shift of the logarithms as a ratio', () => {
    const m = ratioInterval([200, 400, 600, 800], [100, 200, 300, 400]);
    expect(m.median).toBeCloseTo(2, 10);
    expect(m.low).toBeLessThan(2);
    expect(m.high).toBeGreaterThan(2);
  });
});
