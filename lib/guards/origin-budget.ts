import { BUDGET_SLOTS, LocalBudget } from './local-budget';
import { SlotCounts } from './slot-counts';
import type { BudgetSettings, RetryBudgetLike, RetryBudgetState } from '../types';

/**
 * One origin's retry budget, made only when the origin first needs a retry (or someone reads its
 * state). A fan-out that sends each call to a new host would otherwise build a whole bucket
 * per call, for origins that never retry.
 *
 * The ratio needs every first attempt of the window, including those before the first retry, so
 * until then first attempts are kept as a count per slot of the budget's ring (`SlotCounts`, one
 * window of them). When the budget is made they are deposited into it at their
 * own slots, a slot's count at once, so it holds exactly what a budget made on the first call would
 * hold: same refusals, same `state()`.
 */
export class OriginBudget implements RetryBudgetLike {
  private made: LocalBudget | undefined;
  /** First attempts before the budget exists, per slot of its ring (absolute: time ÷ slot length). */
  private early: SlotCounts | undefined;

  constructor(
    private readonly settings: BudgetSettings,
    private readonly now: () => number,
  ) {}

  deposit(): void {
    if (this.made !== undefined) return this.made.deposit();
    const slot = Math.floor(this.now() / (this.settings.windowMs / BUDGET_SLOTS));
    if (this.early === undefined) this.early = new SlotCounts(BUDGET_SLOTS, slot);
    else this.early.add(slot);
  }

  tryWithdraw(): boolean | Promise<boolean> {
    return this.budget().tryWithdraw();
  }

  refund(): void {
    this.budget().refund();
  }

  state(): RetryBudgetState {
    return this.budget().state();
  }

  flush(): Promise<void> {
    return this.made?.flush() ?? Promise.resolve();
  }

  private budget(): LocalBudget {
    if (this.made !== undefined) return this.made;
    // A per-origin budget never has a store: the bucket alone.
    const budget = new LocalBudget(this.settings, this.now);
    const slotMs = this.settings.windowMs / BUDGET_SLOTS;
    // At the middle of each slot, so float rounding cannot put them in a neighbour.
    this.early?.forEach((slot, count) => budget.deposit(count, (slot + 0.5) * slotMs));
    this.early = undefined;
    this.made = budget;
    return budget;
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
