/** How a turn in a limiter's queue ended: it may go, or the queue was at its bound. */
export type Turn = 'go' | 'full';

interface Waiter {
  resolve: (turn: Turn) => void;
  cancelled: boolean;
}

/**
 * The calls waiting for their turn at one rate limiter, first in first out. A place is a promise of
 * the turn, given up by its `cancel` (the call was aborted or hit its deadline); given-up places are
 * skipped when they reach the front, and the array is compacted now and then.
 */
export class TurnQueue {
  private waiters: Waiter[] = [];
  private head = 0;

  /** Places held (given-up ones behind the first still held count until they reach the front). */
  get length(): number {
    return this.waiters.length - this.head;
  }

  join(): { turn: Promise<Turn>; cancel: () => void } {
    let waiter!: Waiter;
    const turn = new Promise<Turn>((resolve) => {
      waiter = { resolve, cancelled: false };
    });
    this.waiters.push(waiter);
    return {
      turn,
      cancel: () => {
        if (waiter.cancelled) return;
        waiter.cancelled = true;
        this.compact();
      },
    };
  }

  /** Whether a place is still held (given-up places at the front are dropped first). */
  hasWaiting(): boolean {
    this.compact();
    return this.length > 0;
  }

  /** Lets the first place still held go; `false` when every place left had been given up. */
  letFirstGo(): boolean {
    while (this.length > 0) {
      const waiter = this.waiters[this.head++]!;
      if (waiter.cancelled) continue;
      waiter.resolve('go');
      this.compact();
      return true;
    }
    this.compact();
    return false;
  }

  /** Lets every place still held go at once (the plugin closed, or the limiter was dropped). */
  letAllGo(): void {
    for (let i = this.head; i < this.waiters.length; i++) {
      const waiter = this.waiters[i]!;
      if (!waiter.cancelled) waiter.resolve('go');
    }
    this.waiters = [];
    this.head = 0;
  }

  /** Drops given-up and released places from the front (and the array's dead start now and then). */
  private compact(): void {
    while (this.head < this.waiters.length && this.waiters[this.head]!.cancelled) this.head++;
    if (this.head > 1024 || this.head === this.waiters.length) {
      this.waiters = this.waiters.slice(this.head);
      this.head = 0;
    }
  }
}
