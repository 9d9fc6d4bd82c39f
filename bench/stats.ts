/** The statistics the benchmarks report: medians, percentiles and distribution-free intervals. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile, `p` in [0, 100]. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** An estimate and its interval; `coverage` is the interval's actual one, below the level asked for only with too few values. */
export type MedianInterval = { median: number; low: number; high: number; coverage: number };

/**
 * The median and a distribution-free confidence interval for it from order statistics: with n
 * values sorted, [x(k), x(n+1−k)] holds the true median with probability P(k ≤ B ≤ n−k), B ~
 * Binomial(n, ½). k is the largest rank whose coverage is still ≥ `level` (so the interval is exact
 * or conservative, never a bootstrap estimate). It assumes only that the values are independent
 * and identically distributed, which shuffling the order within each round is there to make true.
 */
export function medianInterval(values: readonly number[], level = 0.9): MedianInterval {
  const n = values.length;
  if (n === 0) return { median: NaN, low: NaN, high: NaN, coverage: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  // pmf[i] = C(n, i) / 2^n, computed in log space so large n does not underflow.
  const pmf: number[] = [];
  let logChoose = 0;
  for (let i = 0; i <= n; i++) {
    if (i > 0) logChoose += Math.log(n - i + 1) - Math.log(i);
    pmf.push(Math.exp(logChoose - n * Math.LN2));
  }
  const coverageAt = (k: number): number => {
    let sum = 0;
    for (let i = k; i <= n - k; i++) sum += pmf[i]!;
    return sum;
  };
  let k = 1;
  while (k + 1 <= n + 1 - (k + 1) && coverageAt(k + 1) >= level) k++;
  return { median: median(sorted), low: sorted[k - 1]!, high: sorted[n - k]!, coverage: coverageAt(k) };
}

/**
 * How far apart two independent samples are: the Hodges–Lehmann estimate of the shift `x − y`
 * (the median of every pairwise difference) with its distribution-free confidence interval from
 * the exact Mann–Whitney distribution. For samples whose members are whole processes (`--isolate`
 * in bench/overhead.ts), where the rounds of one process are not independent of each other: its
 * JIT, memory layout and hash seed stay the same throughout.
 */
export function shiftInterval(xs: readonly number[], ys: readonly number[], level = 0.9): MedianInterval {
  const m = xs.length;
  const n = ys.length;
  if (m === 0 || n === 0) return { median: NaN, low: NaN, high: NaN, coverage: 0 };
  const diffs: number[] = [];
  for (const x of xs) for (const y of ys) diffs.push(x - y);
  diffs.sort((a, b) => a - b);
  // ways[j][u]: of the orderings of i x's and j y's, how many give Mann–Whitney U = u (the number
  // of (x, y) pairs with x above y), built up one x at a time: the largest value is an x (which
  // is above all j y's) or a y.
  let ways: number[][] = Array.from({ length: n + 1 }, () => [1]);
  for (let i = 1; i <= m; i++) {
    const next: number[][] = [[1]];
    for (let j = 1; j <= n; j++) {
      const row: number[] = [];
      for (let u = 0; u <= i * j; u++) row.push((ways[j]![u - j] ?? 0) + (next[j - 1]![u] ?? 0));
      next.push(row);
    }
    ways = next;
  }
  const dist = ways[n]!;
  const total = dist.reduce((a, b) => a + b, 0);
  // [d(k), d(mn + 1 − k)] (1-based) covers the true shift with probability 1 − 2·P(U < k).
  let k = 0;
  let below = 0;
  while (k + 1 <= (m * n) / 2 && 1 - (2 * (below + dist[k]!)) / total >= level) {
    below += dist[k]!;
    k++;
  }
  return {
    median: median(diffs),
    // Too few samples for the level: no interval at all, rather than an unbounded one.
    low: k === 0 ? NaN : diffs[k - 1]!,
    high: k === 0 ? NaN : diffs[m * n - k]!,
    coverage: 1 - (2 * below) / total,
  };
}

/** `shiftInterval` on a log scale, as ratios `x ÷ y` (for throughputs). */
export function ratioInterval(xs: readonly number[], ys: readonly number[], level = 0.9): MedianInterval {
  const shift = shiftInterval(xs.map(Math.log), ys.map(Math.log), level);
  return { ...shift, median: Math.exp(shift.median), low: Math.exp(shift.low), high: Math.exp(shift.high) };
}
