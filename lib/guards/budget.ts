/**
 * The public retry budget (`new RetryBudget()`): the bucket of `LocalBudget`, plus, with a `store`,
 * the counts a fleet shares. First attempts are batched to the store; a retry asks it and mirrors
 * its answer in the local bucket, which decides alone while the store is down or slow.
 */

import { DEFAULTS, systemClock } from '../policy/defaults';
import { budgetNumber, budgetSettings } from '../policy/guard-options';
import { typed } from '../policy/validate';
import { LocalBudget } from './local-budget';
import { StoreHealth, warnOnce } from './store-health';
import type { BudgetSettings, BudgetStore, RetryBudgetLike, RetryBudgetState, StoreEvent } from '../types';

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
  private readonly local: LocalBudget;
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
    const now = options.now ?? systemClock;
    this.local = new LocalBudget({ ratio, minPerSecond, windowMs }, now);
    this.store = options.store;
    const store = DEFAULTS.budgetStore;
    this.flushIntervalMs = budgetNumber('flushIntervalMs', options.flushIntervalMs, store.flushIntervalMs, true);
    this.storeTimeoutMs = budgetNumber('storeTimeoutMs', options.storeTimeoutMs, store.storeTimeoutMs, true);
    this.health = new StoreHealth(
      this.storeTimeoutMs,
      options.onStoreEvent ?? warnOnce('retry budget store', 'using the local budget'),
      now,
    );
  }

  /** The resolved settings. */
  get options(): BudgetSettings {
    return this.local.options;
  }

  /** Counts a first attempt. With a store, the count is batched and handed over later. */
  deposit(): void {
    this.local.deposit();
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
    if (this.store === undefined || !this.storeUsable()) return this.local.tryWithdraw();
    return this.withdrawShared(this.store);
  }

  /**
   * Gives back one granted retry that was never sent (its call was aborted, or its hook failed,
   * before the re-send). Counts only while the grant is still in the window.
   */
  refund(): void {
    this.local.refund();
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

  private async withdrawShared(store: BudgetStore): Promise<boolean> {
    let granted: boolean;
    try {
      granted = await this.health.ask(store.withdraw(this.options));
    } catch {
      return this.local.tryWithdraw();
    }
    // Mirror the shared answer locally, so a fallback later starts from what this process spent.
    return this.local.tryWithdraw(granted);
  }

  private storeUsable(): boolean {
    return this.health.usable(this.store?.ready?.() !== false);
  }

  /** A snapshot of the budget. */
  state(): RetryBudgetState {
    const shared = this.store !== undefined && !this.health.down && this.store.ready?.() !== false;
    return { ...this.local.state(), mode: shared ? 'shared' : 'local' };
  }
}
