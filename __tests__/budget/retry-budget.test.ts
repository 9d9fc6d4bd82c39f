import { RetryBudget } from '../../lib/guards/budget';
import type { BudgetStore } from '../../lib/types';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('RetryBudget', () => {
  test('grants at most ratio × requests + floor in a window', () => {
    const c = clock();
    const budget = new RetryBudget({ ratio: 0.1, minPerSecond: 0, windowMs: 10000, now: c.now });
    for (let i = 0; i < 100; i++) budget.deposit();
    let granted = 0;
    for (let i = 0; i < 50; i++) if (budget.tryWithdraw()) granted++;
    expect(granted).toBe(10);
    expect(budget.state()).toMatchObject({ available: 0, requests: 100, retries: 10, granted: 10, refused: 40 });
  });

  test('the floor lets a quiet client retry: minPerSecond × windowMs / 1000', () => {
    const c = clock();
    const budget = new RetryBudget({ ratio: 0, minPerSecond: 2, windowMs: 5000, now: c.now });
    let granted = 0;
    for (let i = 0; i < 20; i++) if (budget.tryWithdraw()) granted++;
    expect(granted).toBe(10);
  });

  test('defaults: ratio 0.1, 10 per second, 10 s window', () => {
    const budget = new RetryBudget();
    expect(budget.options).toEqual({ ratio: 0.1, minPerSecond: 10, windowMs: 10000 });
    expect(budget.state().available).toBe(100);
  });

  test('tokens expire after the window: a burst long ago buys nothing now', () => {
    const c = clock();
    const budget = new RetryBudget({ ratio: 0.5, minPerSecond: 0, windowMs: 10000, now: c.now });
    for (let i = 0; i < 100; i++) budget.deposit();
    expect(budget.state().available).toBe(50);
    c.advance(10_000);
    expect(budget.state().available).toBe(0);
    expect(budget.tryWithdraw()).toBe(false);
  });

  test('withdrawals expire too, so the budget refills as the window slides', () => {
    const c = clock();
    const budget = new RetryBudget({ ratio: 0, minPerSecond: 1, windowMs: 10000, now: c.now });
    for (let i = 0; i < 10; i++) expect(budget.tryWithdraw()).toBe(true);
    expect(budget.tryWithdraw()).toBe(false);
    c.advance(5000);
    expect(budget.tryWithdraw()).toBe(false);
    c.advance(5000);
    expect(budget.tryWithdraw()).toBe(true);
  });

  test('deposits within the window keep counting while older ones expire', () => {
    const c = clock(0);
    const budget = new RetryBudget({ ratio: 1, minPerSecond: 0, windowMs: 10000, now: c.now });
    budget.deposit(); // t = 0
    c.advance(6000);
    budget.deposit(); // t = 6 s
    expect(budget.state().requests).toBe(2);
    c.advance(5000); // t = 11 s: the first deposit is out of the window
    expect(budget.state().requests).toBe(1);
    c.advance(6000); // t = 17 s: both are out
    expect(budget.state().requests).toBe(0);
  });

  test('uses constant memory however much traffic it sees', () => {
    const c = clock();
    const budget = new RetryBudget({ now: c.now });
    for (let i = 0; i < 100_000; i++) {
      budget.deposit();
      c.advance(7);
    }
    // Only the last window's requests count: 10 s / 7 ms ≈ 1,428 (one slot of slack).
    expect(budget.state().requests).toBeGreaterThan(1200);
    expect(budget.state().requests).toBeLessThanOrEqual(1429);
  });

  test.each([
    [{ ratio: -1 }, /budget.ratio/],
    [{ minPerSecond: Number.NaN }, /budget.minPerSecond/],
    [{ windowMs: 0 }, /budget.windowMs must be a finite number > 0/],
  ])('%p is refused with a TypeError', (options, message) => {
    expect(() => new RetryBudget(options)).toThrow(message);
  });
});

describe('RetryBudget with a store', () => {
  function store(overrides: Partial<BudgetStore> = {}) {
    const calls = { deposits: [] as number[], withdraws: 0 };
    const value: BudgetStore = {
      deposit: async (count) => void calls.deposits.push(count),
      withdraw: async () => {
        calls.withdraws++;
        return true;
      },
      ...overrides,
    };
    return { value, calls };
  }

  test('batches first attempts and asks the store only for retries', async () => {
    jest.useFakeTimers();
    try {
      const s = store();
      const budget = new RetryBudget({ store: s.value, flushIntervalMs: 100 });
      for (let i = 0; i < 5; i++) budget.deposit();
      expect(s.calls.deposits).toEqual([]);
      await jest.advanceTimersByTimeAsync(100);
      expect(s.calls.deposits).toEqual([5]);
      await expect(budget.tryWithdraw()).resolves.toBe(true);
      expect(s.calls.withdraws).toBe(1);
      expect(budget.state().mode).toBe('shared');
    } finally {
      jest.useRealTimers();
    }
  });

  test("the store's refusal is final", async () => {
    const s = store({ withdraw: async () => false });
    const budget = new RetryBudget({ store: s.value });
    await expect(budget.tryWithdraw()).resolves.toBe(false);
    expect(budget.state()).toMatchObject({ refused: 1, granted: 0 });
  });

  test('a failing store falls back to the local bucket, says so once, and is asked again after a second', async () => {
    const c = clock();
    const events: string[] = [];
    let healthy = false;
    const s = store({
      withdraw: async () => {
        if (!healthy) throw new Error('connection refused');
        return false;
      },
    });
    const budget = new RetryBudget({
      ratio: 0,
      minPerSecond: 1,
      store: s.value,
      now: c.now,
      onStoreEvent: (e) => void events.push(e.type),
    });
    await expect(budget.tryWithdraw()).resolves.toBe(true); // local floor: 10 tokens
    expect(budget.tryWithdraw()).toBe(true); // store not asked again yet: an immediate local answer
    expect(events).toEqual(['store-down']);
    expect(budget.state().mode).toBe('local');
    healthy = true;
    c.advance(1000);
    await expect(budget.tryWithdraw()).resolves.toBe(false); // the store answers again, and refuses
    expect(events).toEqual(['store-down', 'store-up']);
    expect(budget.state().mode).toBe('shared');
  });

  test('a store that does not answer in storeTimeoutMs is decided locally', async () => {
    jest.useFakeTimers();
    try {
      const s = store({ withdraw: () => new Promise<boolean>(() => undefined) });
      const budget = new RetryBudget({ store: s.value, storeTimeoutMs: 50, onStoreEvent: () => undefined });
      const grant = budget.tryWithdraw();
      await jest.advanceTimersByTimeAsync(50);
      await expect(grant).resolves.toBe(true);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  test('a store that says it is not connected is not waited for', () => {
    const s = store({ ready: () => false });
    const budget = new RetryBudget({ store: s.value, onStoreEvent: () => undefined });
    expect(budget.tryWithdraw()).toBe(true);
    expect(s.calls.withdraws).toBe(0);
  });
});
