/**
 * Counts per time slot, for state that is not built yet: an origin's successes before its breaker
 * exists (slots: turns of the breakers' rolling window) and its first attempts before its budget
 * does (slots of the budget's ring). Pairs of (slot, count), oldest first, at most `keep` of them:
 * older slots have left the window and would never be read. Slots only move forward.
 */
export class SlotCounts {
  private readonly pairs: number[] = [];

  constructor(private readonly keep: number) {}

  /** Counts one in `slot`. */
  add(slot: number): void {
    const pairs = this.pairs;
    const last = pairs.length - 2;
    if (last >= 0 && pairs[last] === slot) {
      pairs[last + 1]! += 1;
      return;
    }
    if (pairs.length >= 2 * this.keep) pairs.splice(0, 2);
    pairs.push(slot, 1);
  }

  /** Each slot with its count, oldest first. */
  forEach(visit: (slot: number, count: number) => void): void {
    for (let i = 0; i < this.pairs.length; i += 2) visit(this.pairs[i]!, this.pairs[i + 1]!);
  }
}
