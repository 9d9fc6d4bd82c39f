/**
 * The retry budget: a token bucket whose tokens expire (the Finagle / Linkerd design). Over any
 * window of `windowMs` it grants at most `ratio × requests + minPerSecond × windowMs / 1000`
 * retries, where `requests` counts first attempts in that window.
 *
 * Counts live in a ring of `SLOTS` time slots, so memory is constant and each operation is O(1)
 * (advancing the ring clears at most `SLOTS` slots). Expiry has the granularity of one slot: a
 * window is really "the current slot plus the previous SLOTS - 1", so it may count up to
 * `windowMs / SLOTS` less than the exact sliding window — the slack is on the side of fewer retries
 * for deposits (old deposits expire a little early) and up to one slot of retries expiring early.
 */

const SLOTS = 10;

/** Options of `new RetryBudget()`; every field is optional. */
export interface RetryBudgetOptions {
  /**
   * Retries allowed per first attempt, over the window (0.1 = at most +10 % load).
   * @default 0.1
   */
  ratio?: number;
  /**
   * Retries per second allowed however little traffic there is, so a quiet client can still
   * retry a single blip.
   * @default 10
   */
  minPerSecond?: number;
  /**
   * How long deposits and withdrawals count, in ms.
   * @default 10000
   */
  windowMs?: number;
  /**
   * Clock in ms. Inject one in tests.
   * @default Date.now
   */
  now?: () => number;
}

/** What a budget has done, for dashboards and logs. */
export interface RetryBudgetState {
  /** Whole retries it would grant right now. */
  available: number;
  /** First attempts counted in the current window. */
  requests: number;
  /** Retries granted in the current window. */
  retries: number;
  /** Retries granted since it was made. */
  granted: number;
  /** Retries refused since it was made. */
  refused: number;
}

function check(field: string, value: unknown, fallback: number, positive: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (positive && value === 0)) {
    throw new TypeError(
      `axios-resilience: budget.${field} must be a finite number ${positive ? '> 0' : '>= 0'}, got ${String(value)}`,
    );
  }
  return value;
}

export class RetryBudget {
  /** The resolved settings. */
  readonly options: { ratio: number; minPerSecond: number; windowMs: number };
  private readonly now: () => number;
  private readonly slotMs: number;
  private readonly reserve: number;
  private readonly deposits = new Float64Array(SLOTS);
  private readonly withdrawals = new Float64Array(SLOTS);
  private depositTotal = 0;
  private withdrawalTotal = 0;
  /** Absolute index (time / slotMs) of the newest slot written. */
  private head = -Infinity;
  private grantedTotal = 0;
  private refusedTotal = 0;

  constructor(options: RetryBudgetOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('axios-resilience: RetryBudget options must be an object');
    }
    const ratio = check('ratio', options.ratio, 0.1, false);
    const minPerSecond = check('minPerSecond', options.minPerSecond, 10, false);
    const windowMs = check('windowMs', options.windowMs, 10000, true);
    if (options.now !== undefined && typeof options.now !== 'function') {
      throw new TypeError('axios-resilience: budget.now must be a function');
    }
    this.options = { ratio, minPerSecond, windowMs };
    this.now = options.now ?? Date.now;
    this.slotMs = windowMs / SLOTS;
    this.reserve = (minPerSecond * windowMs) / 1000;
  }

  /** Counts a first attempt. */
  deposit(): void {
    this.deposits[this.slot()]! += 1;
    this.depositTotal += 1;
  }

  /** Takes one retry from the budget; `false` when it is spent (the caller must not retry). */
  tryWithdraw(): boolean {
    const index = this.slot();
    if (this.available() < 1) {
      this.refusedTotal += 1;
      return false;
    }
    this.withdrawals[index]! += 1;
    this.withdrawalTotal += 1;
    this.grantedTotal += 1;
    return true;
  }

  /** A snapshot of the budget. */
  state(): RetryBudgetState {
    this.slot();
    return {
      available: Math.max(0, Math.floor(this.available())),
      requests: this.depositTotal,
      retries: this.withdrawalTotal,
      granted: this.grantedTotal,
      refused: this.refusedTotal,
    };
  }

  private available(): number {
    // A tiny epsilon absorbs float error such as 0.1 * 10 = 0.9999999999999999.
    return this.options.ratio * this.depositTotal + this.reserve - this.withdrawalTotal + 1e-9;
  }

  /** Expires slots older than the window and returns the ring index of the current slot. */
  private slot(): number {
    const absolute = Math.floor(this.now() / this.slotMs);
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
    }
    // A clock that steps back keeps writing into the newest slot.
    return ((this.head % SLOTS) + SLOTS) % SLOTS;
  }
}
