import { BoundedMap } from './origins';
import { RateLimiter } from './rate-limiter';
import type { RateLimitEvent, RateLimitStore } from '../types';

/**
 * The rate limiters of one plugin, one per origin (or breaker key), made at an origin's first
 * throttle. `engaged` counts those that are on, so a call to an origin that never throttled pays
 * one field check and no map lookup.
 */
export class RateLimiters {
  /** Limiters now on. While it is 0, no call looks a limiter up. */
  engaged = 0;
  private readonly entries: BoundedMap<RateLimiter>;

  constructor(
    private readonly now: () => number,
    private readonly maxQueue: number,
    maxOrigins: number,
    private readonly onRateLimit: ((event: RateLimitEvent) => void) | undefined,
    /** The fleet's store (`rateLimit.shared`): its limiters then pace on one shared schedule. */
    private readonly store?: RateLimitStore,
  ) {
    this.entries = new BoundedMap(maxOrigins, (limiter) => {
      if (limiter.state === 'on') this.engaged--;
      limiter.close();
    });
    // Another process's first throttle engages this process's limiter too, before its own 429.
    store?.start?.((key) => this.for(key).join());
  }

  /** The limiter for `key` if it exists. */
  get(key: string): RateLimiter | undefined {
    return this.entries.get(key);
  }

  /** The limiter pacing `key` now, if one is on: while none is, one field check and no lookup. */
  active(key: string): RateLimiter | undefined {
    if (this.engaged === 0) return undefined;
    const limiter = this.entries.get(key);
    return limiter?.state === 'on' ? limiter : undefined;
  }

  /** The limiter for `key`, made on first use (a throttle). */
  for(key: string): RateLimiter {
    return this.entries.getOrCreate(key, this.create);
  }

  /** Releases every queued call and stops every timer (and the store's, if it has any). */
  async close(): Promise<void> {
    for (const limiter of this.entries.values()) limiter.close();
    this.entries.clear();
    this.engaged = 0;
    await this.store?.close?.();
  }

  private readonly changed = (event: RateLimitEvent): void => {
    this.engaged += event.state === 'engaged' ? 1 : -1;
    const report = this.onRateLimit;
    if (report === undefined) return;
    try {
      report(event);
    } catch {
      // An observer's throw must not break the call that happened to report the change.
    }
  };

  private readonly create = (key: string): RateLimiter =>
    new RateLimiter(key, this.now, this.maxQueue, this.changed, this.store?.pacing(key, this.now));
}
