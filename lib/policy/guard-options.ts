import type { BudgetSettings, RetryBudgetLike } from '../types';
import { DEFAULTS } from './defaults';
import { fail, optionsObject, own, wholeNumber } from './validate';

/** The retry budget's settings (the breaker's are in `breaker-options.ts`, which a browser build swaps out). */

/** `shared`: one budget for every call; `perOrigin`: the settings of one budget per origin. */
export type ResolvedBudget =
  false | { shared: RetryBudgetLike } | { perOrigin: BudgetSettings & { maxOrigins: number } };

const BUDGET_FIELDS = new Set(['ratio', 'minPerSecond', 'windowMs', 'maxOrigins']);

/** A budget number: finite, not negative, and for a window or an interval not zero either. */
export function budgetNumber(field: string, value: unknown, fallback: number, positive: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (positive && value === 0)) {
    fail('', `budget.${field}`, 'E30', value, positive);
  }
  return value;
}

/**
 * The budget's ratio is a share of first attempts, 0 to 1: at 1 retries may double the load, which
 * is already past what a budget is for (bounding a retry storm); more than that is no budget at
 * all (`budget: false` says so plainly), and a value above 1 is most often a percentage (`10` for
 * 10 %) that would let every call retry ten times.
 */
function budgetRatio(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) fail('', 'budget.ratio', 'E31', value);
  return value;
}

/** Ratio, floor and window of a budget (`new RetryBudget()` and the plugin's `budget` option alike). */
export function budgetSettings(input: { ratio?: unknown; minPerSecond?: unknown; windowMs?: unknown }): BudgetSettings {
  const defaults = DEFAULTS.budget;
  return {
    ratio: budgetRatio(input.ratio, defaults.ratio),
    minPerSecond: budgetNumber('minPerSecond', input.minPerSecond, defaults.minPerSecond, false),
    windowMs: budgetNumber('windowMs', input.windowMs, defaults.windowMs, true),
  };
}

export function resolveBudget(value: unknown): ResolvedBudget {
  if (value === false) return false;
  // A shared budget: a RetryBudget, or anything that keeps the same promises.
  if (typeof (value as RetryBudgetLike | null)?.tryWithdraw === 'function') return { shared: value as RetryBudgetLike };
  const input = optionsObject('', 'budget', value === undefined ? {} : value, BUDGET_FIELDS, 'E32');
  const settings = budgetSettings({
    ratio: own(input, 'ratio'),
    minPerSecond: own(input, 'minPerSecond'),
    windowMs: own(input, 'windowMs'),
  });
  const maxOrigins = wholeNumber('', 'budget.maxOrigins', own(input, 'maxOrigins'), DEFAULTS.budget.maxOrigins, 1);
  return { perOrigin: { ...settings, maxOrigins } };
}
