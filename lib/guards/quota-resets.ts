import { RATE_RULE } from './rate-rule';

/**
 * When a spent quota's reset is believed, for one rate-limit key. A token bucket that reports when
 * it is full again refills long before that, and a reset in whole seconds can be a second late, so a
 * reset is only noted until the server shows it means it: a call sent after the quota was said to be
 * spent (after a success said so, or a step after a refusal did: one burst's refusals prove
 * nothing), refused before the reset with no success in between. The key then holds until the
 * reset, and from then on its resets hold it at once: a fixed window draws no more refusals.
 */
export class QuotaResets {
  /**
   * A reset heard, not yet confirmed: a refusal of a call sent from `confirmsFrom` on, before
   * `until`, confirms it (cleared by any success that does not say the quota is spent).
   */
  private spent: { saidAt: number; confirmsFrom: number; until: number } | undefined;
  /** This key's resets proved real once. */
  private proved = false;

  /**
   * A refusal whose quota resets in `resetMs`: the hold it earns (`undefined`: none yet), and when
   * the server first said the quota was spent, if that still stands (`spentAt`: a fleet holds only if
   * none of its processes had a success since, which this process cannot see).
   */
  refused(
    now: number,
    sentAt: number,
    resetMs: number | undefined,
  ): { holdMs: number; spentAt: number | undefined } | undefined {
    if (resetMs === undefined) return undefined;
    const standing = this.spent !== undefined && now < this.spent.until ? this.spent : undefined;
    if (this.proved || (standing !== undefined && sentAt >= standing.confirmsFrom)) {
      this.proved = true;
      return { holdMs: resetMs, spentAt: standing?.saidAt };
    }
    if (standing === undefined)
      this.spent = { saidAt: now, confirmsFrom: now + RATE_RULE.stepMs, until: now + resetMs };
    return undefined;
  }

  /** A success said the quota is spent until `resetMs` from now: the hold it earns (`undefined`: none yet). */
  spentOnSuccess(now: number, resetMs: number): number | undefined {
    this.spent = { saidAt: now, confirmsFrom: now, until: now + resetMs };
    return this.proved ? resetMs : undefined;
  }

  /** A success that does not say the quota is spent: a reset heard before proves nothing now. */
  succeeded(): void {
    this.spent = undefined;
  }
}
