/**
 * The retry budget's bucket, kept in this process: a token bucket whose tokens expire (the
 * Finagle / Linkerd design). Over any window of `windowMs` it grants at most
 * `ratio × requests + minPerSecond × windowMs / 1000` retries, where `requests` counts first
 * attempts in that window.
 *
 * Counts are kept per time slot, `BUDGET_SLOTS` slots a window, so memory is constant. Expiry has
 * the granularity of one slot: a window is really "the current slot plus the previous
 * BUDGET_SLOTS - 1", so it may count up to `windowMs / BUDGET_SLOTS` less than the exact sliding
 * window — the slack is on the side of fewer retries for deposits (old deposits expire a little
 * early) and up to one slot of retries expiring early.
 *
 * The current slot's counts are fields; the older slots of the window sit in a ring made when the
 * first slot ends, and are summed once per slot, when a new one begins. So a first attempt is a
 * clock read and an increment, a retry's token a few more, and an origin called within one slot
 * (most origins of a fan-out) never makes the ring: a bucket per origin costs one object.
 *
 * Each origin's budget is one of these; `RetryBudget` (the public class) keeps one beside the store
 * a fleet shares, so an app without a fleet does not carry the store's code. A call draws its
 * retries from its budget through a `RetryToken` (below).
 */
import type { BudgetSettings, RetryBudgetLike, RetryBudgetState } from '../types';

/** Slots per window, locally and in a shared store. */
export const BUDGET_SLOTS = 10;
const SLOTS = BUDGET_SLOTS;

export class LocalBudget implements RetryBudgetLike {
  private readonly slotMs: number;
  private readonly reserve: number;
  /** The current slot (time ÷ slotMs; a clock that steps back keeps counting in it), and its counts. */
  private head = -Infinity;
  private headRequests = 0;
  private headRetries = 0;
  /** The older slots' counts, by slot modulo `SLOTS`: (slot, requests, retries) each. */
  private ring: Float64Array | undefined;
  /** What the ring holds of the window, summed when the head last moved. */
  private olderRequests = 0;
  private olderRetries = 0;
  private granted = 0;
  private refused = 0;

  constructor(
    /** The settings it grants by, already checked. */
    readonly options: BudgetSettings,
    private readonly now: () => number,
  ) {
    this.slotMs = options.windowMs / SLOTS;
    this.reserve = (options.minPerSecond * options.windowMs) / 1000;
  }

  /**
   * Counts `count` first attempts now. With 0 it only brings the window to now, as every other
   * operation does first (one clock read and one comparison while the slot lasts). Every first
   * attempt calls it: it computes nothing else.
   */
  deposit(count = 1): void {
    const slot = Math.floor(this.now() / this.slotMs);
    if (slot > this.head) {
      // A new bucket's first slot has no slot before it to keep.
      if (this.head === -Infinity) this.head = slot;
      else this.turn(slot);
    }
    this.headRequests += count;
  }

  /** The retries the window grants now (fractional), the window brought to now first. */
  private grantNow(): number {
    this.deposit(0);
    const requests = this.olderRequests + this.headRequests;
    // A tiny epsilon absorbs float error such as 0.1 * 10 = 0.9999999999999999.
    return this.options.ratio * requests + this.reserve - this.olderRetries - this.headRetries + 1e-9;
  }

  /**
   * Takes one retry; `false` when the bucket is spent. `decided`: a retry granted (or refused)
   * elsewhere, by a shared store, counted here as it was decided.
   */
  tryWithdraw(decided?: boolean): boolean {
    const available = this.grantNow();
    if (!(decided ?? available >= 1)) {
      this.refused += 1;
      return false;
    }
    this.headRetries += 1;
    this.granted += 1;
    return true;
  }

  /**
   * Gives back one granted retry that was never sent (its call was aborted, or its hook failed,
   * before the re-send). Counts only while the grant is still in the window.
   */
  refund(): void {
    this.deposit(0);
    this.granted = Math.max(0, this.granted - 1);
    if (this.headRetries >= 1) {
      this.headRetries -= 1;
      return;
    }
    // The wait crossed a slot boundary: the grant is in the newest older slot that holds one.
    const ring = this.ring;
    for (let slot = this.head - 1; ring !== undefined && slot > this.head - SLOTS; slot--) {
      const at = 3 * indexOf(slot);
      if (ring[at] === slot && ring[at + 2]! >= 1) {
        ring[at + 2]! -= 1;
        this.olderRetries -= 1;
        return;
      }
    }
  }

  /** A snapshot of the bucket. */
  state(): RetryBudgetState {
    const available = this.grantNow();
    return {
      available: Math.max(0, Math.floor(available)),
      requests: this.olderRequests + this.headRequests,
      retries: this.olderRetries + this.headRetries,
      granted: this.granted,
      refused: this.refused,
      mode: 'local',
    };
  }

  /** Nothing is batched here. */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  /** The head moves on to `slot`: its counts go into the ring, and the ring's slots still in the window are summed. */
  private turn(slot: number): void {
    const ring = (this.ring ??= new Float64Array(3 * SLOTS));
    const at = 3 * indexOf(this.head);
    ring[at] = this.head;
    ring[at + 1] = this.headRequests;
    ring[at + 2] = this.headRetries;
    this.head = slot;
    this.headRequests = 0;
    this.headRetries = 0;
    let requests = 0;
    let retries = 0;
    // Slots never written read as slot 0 with nothing counted: they add nothing wherever they fall.
    for (let i = 0; i < ring.length; i += 3) {
      if (ring[i]! <= slot - SLOTS) continue;
      requests += ring[i + 1]!;
      retries += ring[i + 2]!;
    }
    this.olderRequests = requests;
    this.olderRetries = retries;
  }
}

/**
 * What lets a planned retry go out once the plan allows it: a retry-budget token. It is the one
 * guard with an effect, so it comes after every pure one (a retry refused for another reason costs
 * no token), and a token taken for a retry that is never sent goes back.
 */
export class RetryToken {
  /** A token is held for a retry not sent yet. */
  private held = false;

  constructor(private budget: RetryBudgetLike | undefined) {}

  /** Takes a token for the next retry; `false` when the budget is spent. A call without a budget always may. */
  async take(): Promise<boolean> {
    if (this.budget === undefined) return true;
    if (!(await this.budget.tryWithdraw())) return false;
    this.held = true;
    return true;
  }

  /** The retry it was taken for is being sent. */
  spend(): void {
    this.held = false;
  }

  /**
   * The call moved to another origin: a token held for the retry goes back to the budget it came
   * from and is taken from `budget`, the new origin's; `false` when that one is spent.
   */
  async moveTo(budget: RetryBudgetLike | undefined): Promise<boolean> {
    const held = this.held;
    this.giveBack();
    this.budget = budget;
    return held ? this.take() : true;
  }

  /** The call ended before the retry was sent: the token goes back. */
  giveBack(): void {
    if (!this.held) return;
    this.held = false;
    this.budget!.refund();
  }
}

/** The ring position of an absolute slot (slots before the epoch included). */
function indexOf(slot: number): number {
  return ((slot % SLOTS) + SLOTS) % SLOTS;
}
