import { RateLimiter } from './rate-limiter';
import type { Throttle } from './rate-limiter';
import type { RateLimitEvent, RateLimitPacing } from '../types';

/** A rate limiter whose send times come from the fleet's schedule; what it observes goes to the fleet too. */
export class SharedRateLimiter extends RateLimiter {
  private readonly shared: RateLimitPacing;
  private readonly clock: () => number;

  constructor(
    key: string,
    now: () => number,
    maxQueue: number,
    onChange: ((event: RateLimitEvent) => void) | undefined,
    pacing: RateLimitPacing,
  ) {
    super(key, now, maxQueue, onChange, pacing);
    this.shared = pacing;
    this.clock = now;
  }

  /** The fleet engaged this origin's limiter (another process was throttled): turn on, and tell nobody. */
  join(): void {
    if (this.state === 'off') super.throttled({ sentAt: -Infinity });
  }

  override succeeded(): void {
    if (this.state === 'on') this.shared.succeeded();
    super.succeeded();
  }

  override throttled(throttle: Throttle): void {
    // A spent quota's reset, once confirmed, holds the fleet as a server wait would.
    const now = this.clock();
    const held = { ...throttle, pauseMs: throttle.pauseMs ?? this.confirmedReset(now, throttle), resetMs: undefined };
    // First, so the request for send times the local limiter then makes follows the report.
    this.shared.throttled(held, now);
    super.throttled(held);
  }

  override hinted(policyRate: number | undefined, pauseMs: number | undefined): void {
    if (this.state === 'on') this.shared.hinted(policyRate);
    super.hinted(policyRate, pauseMs);
  }
}
