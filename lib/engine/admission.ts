import type { RetryBudgetLike } from '../types';

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
