import { BoundedMap } from './origins';
import { RATE_RULE } from './rate-state';

/**
 * Whether a scope's bare refusals (a 429 with no hint: no wait, no rate-limit field) show that the
 * rate causes them. One engages nothing by itself: a server that refuses a share of calls at random
 * refuses it at any rate, and pacing every other call for it made them slower than plain axios. Such
 * refusals engage their scope's limiter only once they are a share of its answers no chance could
 * make (at least `EVIDENCE.refusals` of them, within an `EVIDENCE.windowMs` window): half of them,
 * held for `EVIDENCE.soonestMs` (a storm), or a fifth, held for `EVIDENCE.heldMs`. Then the rate is
 * the cause. A burst the callers' own backoff resolves (a server allowing ten requests in flight, met
 * by twenty at once) engages nothing. Until then each refused call waits its own backoff, as a 503's would.
 */
export const EVIDENCE = { refusals: 5, storm: 0.5, soonestMs: 200, share: 0.2, heldMs: 1000, windowMs: 2000 } as const;

/** One origin's current evidence window: bare refusals per scope key, and the origin's successes. */
interface Window {
  refusals: Map<string, number>;
  successes: number;
  start: number;
}

/**
 * The evidence windows of a plugin's origins. `scopes.weighing` counts the scopes whose bare refusals
 * are being weighed (the limiters' field, read on every success: while it is 0, a success counts nothing).
 * Its two questions are arrow functions, so the limiters hand them out as their own, at no extra call.
 */
export class BareRefusals {
  private readonly windows: BoundedMap<Window>;

  constructor(
    maxOrigins: number,
    private readonly scopes: { weighing: number },
  ) {
    this.windows = new BoundedMap(maxOrigins, (window) => void (scopes.weighing -= window.refusals.size));
  }

  /** A bare refusal of a call under `key`: if it shows the rate is the cause, the rate its origin was served at. */
  readonly refused = (origin: string, key: string, now: number): { served: number } | undefined => {
    const window = this.windows.getOrCreate(origin, () => ({ refusals: new Map(), successes: 0, start: -Infinity }));
    const span = this.turn(window, now);
    const refused = (window.refusals.get(key) ?? 0) + 1;
    if (refused === 1) this.scopes.weighing++;
    window.refusals.set(key, refused);
    const share = refused / (refused + window.successes);
    const shown =
      refused >= EVIDENCE.refusals &&
      ((span >= EVIDENCE.soonestMs && share >= EVIDENCE.storm) || (span >= EVIDENCE.heldMs && share >= EVIDENCE.share));
    if (!shown) return undefined;
    window.refusals.delete(key);
    this.scopes.weighing--;
    return { served: (window.successes * 1000) / Math.max(RATE_RULE.stepMs, span) };
  };

  /** A success at `origin`: counted where bare refusals are being weighed. */
  readonly succeeded = (origin: string, now: number): void => {
    const window = this.windows.get(origin);
    if (window === undefined || window.refusals.size === 0) return;
    this.turn(window, now);
    window.successes++;
  };

  clear(): void {
    this.windows.clear();
    this.scopes.weighing = 0;
  }

  /** Starts a new evidence window when the last one is over; returns how long the current one has run. */
  private turn(window: Window, now: number): number {
    if (now - window.start >= EVIDENCE.windowMs) {
      window.start = now;
      window.successes = 0;
      this.scopes.weighing -= window.refusals.size;
      window.refusals.clear();
    }
    return now - window.start;
  }
}
