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

import { DEFAULTS, systemClock } from '../policy/defaults';
import { budgetNumber, budgetSettings } from '../policy/guard-options';
import { typed } from '../policy/validate';
import { StoreHealth, warnOnce } from './store-health';
import type { BudgetStore, RetryBudgetLike, RetryBudgetState, StoreEvent } from '../types';

/** Slots per window, locally and in a shared store. */
export const BUDGET_SLOTS = 10;
const SLOTS = BUDGET_SLOTS;

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
   * @default `Date.now`, read when the budget is used (so fake timers are honoured)
   */
  now?: () => number;
  /**
   * Keeps the counts in a store shared by many processes (e.g. `redisBudgetStore(client)`). Without
   * one, the budget is this process's alone.
   * @default undefined
   */
  store?: BudgetStore;
  /**
   * How often batched first attempts are handed to the store, in ms.
   * @default 100
   */
  flushIntervalMs?: number;
  /**
   * How long a retry waits for the store before the local bucket decides, in ms.
   * @default 100
   */
  storeTimeoutMs?: number;
  /**
   * Told when the store fails (once per outage) and when it answers again. The budget keeps
   * working on its local bucket meanwhile; a call never fails because the store did.
   * @default a console.warn line
   */
  onStoreEvent?: (event: StoreEvent) => void;
}

export class RetryBudget implements RetryBudgetLike {
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
  /** The ring index of `head`, and the time its slot ends. */
  private headIndex = 0;
  private headEndsAt = -Infinity;
  private grantedTotal = 0;
  private refusedTotal = 0;
  private readonly store: BudgetStore | undefined;
  private readonly flushIntervalMs: number;
  private readonly storeTimeoutMs: number;
  private readonly health: StoreHealth;
  private pendingDeposits = 0;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: RetryBudgetOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`axios-resilience: RetryBudget options must be an object, got ${typed(options)}`);
    }
    const { ratio, minPerSecond, windowMs } = budgetSettings(options);
    if (options.now !== undefined && typeof options.now !== 'function') {
      throw new TypeError(`axios-resilience: budget.now must be a function, got ${typed(options.now)}`);
    }
    this.options = { ratio, minPerSecond, windowMs };
    this.now = options.now ?? systemClock;
    this.store = options.store;
    const store = DEFAULTS.budgetStore;
    this.flushIntervalMs = budgetNumber('flushIntervalMs', options.flushIntervalMs, store.flushIntervalMs, true);
    this.storeTimeoutMs = budgetNumber('storeTimeoutMs', options.storeTimeoutMs, store.storeTimeoutMs, true);
    this.health = new StoreHealth(
      this.storeTimeoutMs,
      options.onStoreEvent ?? warnOnce('retry budget store', 'using the local budget'),
      this.now,
    );
    this.slotMs = windowMs / SLOTS;
    this.reserve = (minPerSecond * windowMs) / 1000;
  }

  /** Counts a first attempt. With a store, the count is batched and handed over later. */
  deposit(): void {
    this.deposits[this.slot()]! += 1;
    this.depositTotal += 1;
    if (this.store !== undefined) {
      this.pendingDeposits += 1;
      if (this.flushTimer === undefined) {
        this.flushTimer = setTimeout(() => void this.flush(), this.flushIntervalMs);
        // A batch waiting to be sent must not keep the process alive.
        this.flushTimer.unref?.();
      }
    }
  }

  /**
   * Takes one retry from the budget; `false` when it is spent (the caller must not retry). Local
   * budgets answer at once; a shared one answers with a promise (its store's word, or the local
   * bucket's when the store is down or slow).
   */
  tryWithdraw(): boolean | Promise<boolean> {
    if (this.store === undefined || !this.storeUsable()) return this.withdrawLocally();
    return this.withdrawShared(this.store);
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
    if (this.store !== undefined && this.storeUsable() && this.store.refund !== undefined) {
      this.health.ask(this.store.refund(this.options)).catch(() => undefined);
    }
  }

  /** Hands any batched first attempts to the store now and stops the batch timer. */
  async flush(): Promise<void> {
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const count = this.pendingDeposits;
    // Counted while the store is down, a batch is dropped rather than replayed into a later window:
    // late deposits would inflate the budget just as the dependency comes back.
    this.pendingDeposits = 0;
    if (count === 0 || this.store === undefined || !this.storeUsable()) return;
    try {
      await this.health.ask(this.store.deposit(count, this.options));
    } catch {
      // Noted by the health check; the batch is dropped (see above).
    }
  }

  private withdrawLocally(): boolean {
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

  private async withdrawShared(store: BudgetStore): Promise<boolean> {
    let granted: boolean;
    try {
      granted = await this.health.ask(store.withdraw(this.options));
    } catch {
      return this.withdrawLocally();
    }
    // Mirror the shared answer locally, so a fallback later starts from what this process spent.
    const index = this.slot();
    if (granted) {
      this.withdrawals[index]! += 1;
      this.withdrawalTotal += 1;
      this.grantedTotal += 1;
    } else {
      this.refusedTotal += 1;
    }
    return granted;
  }

  private storeUsable(): boolean {
    return this.health.usable(this.store?.ready?.() !== false);
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
      mode: this.store !== undefined && !this.health.down && this.store.ready?.() !== false ? 'shared' : 'local',
    };
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
  private slot(): number {
    const now = this.now();
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
