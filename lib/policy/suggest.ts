/** The nearest known name to a misspelt option, for "did you mean …?" in an error message. */

/**
 * Edit distance with adjacent transpositions (optimal string alignment): `retires` is one edit
 * from `retries`, as a typist would count it.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const previous = rows[i - 1]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known name closest to `given`, ignoring case: one within `allowed` edits (by default a third
 * of its length, at least 1, at most 3) or, for an option's name, one that begins with it or that it
 * begins with (`delay` for `delayMs`). `undefined` when nothing is that close.
 */
export function nearestName(given: string, known: Iterable<string>, allowed?: number): string | undefined {
  const lower = given.toLowerCase();
  const prefixes = allowed === undefined;
  allowed ??= Math.min(3, Math.max(1, Math.floor(given.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const candidate = name.toLowerCase();
    let distance = editDistance(lower, candidate);
    const prefix = prefixes && lower.length >= 3 && (candidate.startsWith(lower) || lower.startsWith(candidate));
    if (distance > allowed && !prefix) continue;
    if (prefix) distance = Math.min(distance, allowed);
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}
