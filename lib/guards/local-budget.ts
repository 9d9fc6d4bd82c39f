/**
 * The retry budget's bucket, kept in this process: a token bucket whose tokens expire (the
 * Finagle / Linkerd design). Over any window of `windowMs` it grants at most
 * `ratio × requests + minPerSecond × windowMs / 1000` retries, where `requests` counts first
 * attempts in that window.
 *
 * Counts live in a ring of `BUDGET_SLOTS` time slots, so memory is constant and each operation is
 * O(1) (advancing the ring clears at most `BUDGET_SLOTS` slots). Expiry has the granularity of one
 * slot: a window is really "the current slot plus the previous BUDGET_SLOTS - 1", so it may count up
 * to `windowMs / BUDGET_SLOTS` less than the exact sliding window — the slack is on the side of fewer
 * retries for deposits (old deposits expire a little early) and up to one slot of retries expiring
 * early.
 *
 * A per-origin budget is one of these alone; `RetryBudget` (the public class) keeps one beside the
 * store a fleet shares, so an app without a fleet does not carry the store's code.
 */
import type { BudgetSettings, RetryBudgetLike, RetryBudgetState } from '../types';

/** Slots per window, locally and in a shared store. */
export const BUDGET_SLOTS = 10;
const SLOTS = BUDGET_SLOTS;

export class LocalBudget implements RetryBudgetLike {
  private readonly slotMs: number;
  private readonly reserve: number;
  private readonly deposits = new Float64Array(SLOTS);
  private readonly withdrawals = new Float64Array(SLOTS);
  private depositTotal = 0;
  private withdrawalTotal = 0;
  /** Absolute index (time / slotMs) of the newest slot written. */
  private head = -Infinity;
  /** The ring index of `head`, and the time its slot ends. */
  private headIndex = 0;
  private headEndsAt = -Infinity;
  private grantedTotal = 0;
  private refusedTotal = 0;

  constructor(
    /** The settings it grants by, already checked. */
    readonly options: BudgetSettings,
    private readonly now: () => number,
  ) {
    this.slotMs = options.windowMs / SLOTS;
    this.reserve = (options.minPerSecond * options.windowMs) / 1000;
  }

  /**
   * Counts a first attempt, now; or `count` of them made at `at`: those an origin kept before its
   * bucket was made, handed over oldest first.
   */
  deposit(count = 1, at?: number): void {
    this.deposits[this.slot(at)]! += count;
    this.depositTotal += count;
  }

  /** Takes one retry; `false` when the bucket is spent. */
  tryWithdraw(): boolean {
    // The slot first: it expires the old ones before what is available is counted.
    const index = this.slot();
    return this.count(index, this.available() >= 1);
  }

  /** Counts a retry granted (or refused) elsewhere, e.g. by a shared store. Returns `granted`. */
  note(granted: boolean): boolean {
    return this.count(this.slot(), granted);
  }

  private count(index: number, granted: boolean): boolean {
    if (!granted) {
      this.refusedTotal += 1;
      return false;
    }
    this.withdrawals[index]! += 1;
    this.withdrawalTotal += 1;
    this.grantedTotal += 1;
    return true;
  }

  /**
   * Gives back one granted retry that was never sent (its call was aborted, or its hook failed,
   * before the re-send). Counts only while the grant is still in the window.
   */
  refund(): void {
    const index = this.slot();
    // The grant sits in the current slot unless the wait crossed a slot boundary: take it from the
    // newest slot that still holds one.
    for (let back = 0; back < SLOTS; back++) {
      const slot = (index - back + SLOTS) % SLOTS;
      if (this.withdrawals[slot]! >= 1) {
        this.withdrawals[slot]! -= 1;
        this.withdrawalTotal -= 1;
        break;
      }
    }
    this.grantedTotal = Math.max(0, this.grantedTotal - 1);
  }

  /** A snapshot of the bucket. */
  state(): RetryBudgetState {
    this.slot();
    return {
      available: Math.max(0, Math.floor(this.available())),
      requests: this.depositTotal,
      retries: this.withdrawalTotal,
      granted: this.grantedTotal,
      refused: this.refusedTotal,
      mode: 'local',
    };
  }

  /** Nothing is batched here. */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  private available(): number {
    // A tiny epsilon absorbs float error such as 0.1 * 10 = 0.9999999999999999.
    return this.options.ratio * this.depositTotal + this.reserve - this.withdrawalTotal + 1e-9;
  }

  /**
   * Expires slots older than the window and returns the ring index of the current slot. Every call
   * asks this once (its first attempt is a deposit), so until the current slot ends it is one clock
   * read and one comparison.
   */
  private slot(now = this.now()): number {
    // A clock that steps back keeps writing into the newest slot.
    if (now < this.headEndsAt) return this.headIndex;
    const absolute = Math.floor(now / this.slotMs);
    if (absolute > this.head) {
      const stale = Math.min(absolute - this.head, SLOTS);
      for (let i = 1; i <= stale; i++) {
        const index = (((absolute - stale + i) % SLOTS) + SLOTS) % SLOTS;
        this.depositTotal -= this.deposits[index]!;
        this.withdrawalTotal -= this.withdrawals[index]!;
        this.deposits[index] = 0;
        this.withdrawals[index] = 0;
      }
      this.head = absolute;
      this.headIndex = ((absolute % SLOTS) + SLOTS) % SLOTS;
      this.headEndsAt = (absolute + 1) * this.slotMs;
    }
    return this.headIndex;
  }
}
