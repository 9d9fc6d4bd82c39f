import { systemClock } from '../policy/defaults';
import type { StoreEvent } from '../types';

/** How long a store that failed is left alone before it is asked again, in ms. */
const RETRY_AFTER_MS = 1000;

/**
 * Whether a shared store can be asked, for the parts that fall back to local state when it cannot:
 * every request to the store gets a timeout, a failure or a disconnected client is reported once
 * and leaves the store alone for a second, and the first answer after that reports it back.
 */
export class StoreHealth {
  /** While the store is down: when to ask it again. */
  private retryAt: number | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly report: (event: StoreEvent) => void,
    private readonly now: () => number = systemClock,
  ) {}

  get down(): boolean {
    return this.retryAt !== undefined;
  }

  /** Whether to ask the store now; `connected` is the client's own view of its connection. */
  usable(connected: boolean): boolean {
    if (this.retryAt !== undefined && this.now() < this.retryAt) return false;
    if (!connected) {
      this.failed(new Error('the store is not connected'));
      return false;
    }
    return true;
  }

  /** The store's answer within the timeout; rejects (after noting the failure) otherwise. */
  async ask<T>(request: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      timer.unref?.();
    });
    try {
      const answer = await Promise.race([request, timeout]);
      if (this.retryAt !== undefined) {
        this.retryAt = undefined;
        this.report({ type: 'store-up' });
      }
      return answer;
    } catch (error) {
      this.failed(error);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private failed(error: unknown): void {
    if (this.retryAt === undefined) this.report({ type: 'store-down', error });
    this.retryAt = this.now() + RETRY_AFTER_MS;
  }
}

/** The default report: one console.warn line per change, naming what falls back to what. */
export function warnOnce(what: string, fallback: string): (event: StoreEvent) => void {
  return (event) =>
    console.warn(
      event.type === 'store-down'
        ? `axios-resilience: ${what} unreachable, ${fallback}: ${String(event.error)}`
        : `axios-resilience: ${what} reachable again`,
    );
}
