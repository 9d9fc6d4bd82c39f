/**
 * Counts per time slot, for state that is not built yet: an origin's successes before its breaker
 * exists (slots: turns of the breakers' rolling window). At most `keep` slots, the newest: older
 * ones have left the window and would never be read. Slots only move forward.
 *
 * Most origins of a fan-out are called within one slot, so the newest slot is held in two fields,
 * and an array is made only for the slots before it (one object per origin, not two, for the
 * garbage collector to carry while up to `maxOrigins` origins are kept).
 */
export class SlotCounts {
  private slot: number;
  private count = 1;
  /** Older slots: pairs of (slot, count), oldest first. */
  private older: number[] | undefined;

  /** Starts with one count in `slot`. */
  constructor(
    private readonly keep: number,
    slot: number,
  ) {
    this.slot = slot;
  }

  add(slot: number): void {
    if (slot === this.slot) {
      this.count += 1;
      return;
    }
    const older = (this.older ??= []);
    if (older.length >= 2 * (this.keep - 1)) older.splice(0, 2);
    if (this.keep > 1) older.push(this.slot, this.count);
    this.slot = slot;
    this.count = 1;
  }

  /** Each slot with its count, oldest first. */
  forEach(visit: (slot: number, count: number) => void): void {
    const older = this.older;
    for (let i = 0; older !== undefined && i < older.length; i += 2) visit(older[i]!, older[i + 1]!);
    visit(this.slot, this.count);
  }
}
