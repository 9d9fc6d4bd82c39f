import CircuitBreaker from 'opossum';
import type { AxiosResponse } from 'axios';
import type { ResolvedBreakerOptions } from '../policy/options';
import { Guard } from './breaker-guard';
import type { GuardedCall, OriginBreaker } from './breaker-guard';
import { BoundedMap, routePattern } from './origins';
import type { BreakerSync, CircuitBreakerView, CircuitState, CircuitStateChange } from '../types';

export { countFailure, Guard } from './breaker-guard';
export type { GuardedCall, OriginBreaker } from './breaker-guard';

const run = (call: GuardedCall): Promise<AxiosResponse> => call.run();
// opossum counts a filtered error as a success: a 4xx or a cancel says the origin is answering.
const notDownstream = (error: unknown, call: GuardedCall): boolean => !call.isDownstreamFailure(error);

/** opossum's types list its own events only; a breaker is a Node-style EventEmitter all the same. */
type EventEmitterLike = { on(event: 'newListener', listener: (event: string | symbol) => void): unknown };

/**
 * The breakers of one plugin, one per key (the origin by default). Many keys must not mean many
 * timers: every breaker's rolling window is rotated by one shared, unref'd interval, snapshots are
 * off, and the number of breakers is bounded (the least recently used is shut down).
 *
 * The open-state wait backs off: it starts at `resetTimeout`, doubles after each failed half-open
 * probe up to `maxResetTimeout`, resets after a success, and is jittered by ±25 %. opossum reads
 * `options.resetTimeout` from the object given to its constructor each time it opens, so the
 * registry sets that value from the breaker's `halfOpen` and `close` events (pinned by a test).
 */
export class BreakerRegistry {
  /** The one clock every breaker's rolling window turns on (opossum's `rotateBucketController`). */
  private readonly rotation = new Rotation();
  /** How many times the rolling windows have turned: dates the successes of keys without a breaker. */
  turn = 0;
  /** Buckets per rolling window. */
  readonly buckets: number;
  /**
   * The `setInterval` that made the shared interval (`null` once closed), and how to stop it. Fake
   * timers (jest, vitest, sinon) replace the global; an interval made under one test's fake clock
   * stops for good when that clock is uninstalled, so a call under other timers makes it again.
   */
  private armedWith: typeof setInterval | null | undefined;
  private stop: (() => void) | undefined;
  private readonly entries: BoundedMap<Guard>;
  private readonly opossumOptions: CircuitBreaker.Options;
  /** Set while a state another process announced is applied, so it is not announced back. */
  private applyingRemote = false;
  /** Shares state with other processes, when configured. */
  readonly shared: BreakerSync | undefined;

  constructor(
    private readonly options: ResolvedBreakerOptions,
    private readonly onStateChange: ((change: CircuitStateChange) => void) | undefined,
    private readonly random: () => number,
  ) {
    this.shared = options.shared;
    this.buckets = options.rollingCountBuckets;
    this.opossumOptions = {
      errorThresholdPercentage: options.errorThresholdPercentage,
      volumeThreshold: options.volumeThreshold,
      rollingCountTimeout: options.rollingCountTimeout,
      rollingCountBuckets: options.rollingCountBuckets,
      rollingPercentilesEnabled: false,
      timeout: false,
      errorFilter: notDownstream as (error: unknown) => boolean,
      rotateBucketController: this.rotation as unknown as CircuitBreaker.Options['rotateBucketController'],
      enableSnapshots: false,
    };
    this.entries = new BoundedMap(options.maxOrigins, (entry) => entry.existing?.shutdown());
    this.shared?.start((key, state, waitMs) => {
      const entry = this.for(key);
      this.applyingRemote = true;
      try {
        if (state === 'open') {
          // The fleet backs off together: the announcer's wait, or ours.
          const breaker = entry.breaker;
          if (waitMs !== undefined) entry.options!.resetTimeout = Math.min(waitMs, this.options.maxResetTimeout);
          breaker.open();
        } else entry.breaker.close();
      } finally {
        this.applyingRemote = false;
      }
    });
  }

  /** Claims the fleet's one half-open probe for `key`. */
  acquireProbe(key: string): Promise<boolean> {
    if (this.shared === undefined) return Promise.resolve(true);
    return this.shared.acquireProbe(key, this.for(key).options?.resetTimeout ?? this.options.resetTimeout);
  }

  /** Successes per second at `key` lately (see `Guard.servedPerTurn`), or `undefined` when none were counted. */
  servedPerSecond(key: string): number | undefined {
    const served = this.entries.get(key)?.servedPerTurn() ?? 0;
    const turnMs = this.options.rollingCountTimeout / this.options.rollingCountBuckets;
    return served > 0 ? (served * 1000) / turnMs : undefined;
  }

  /** How many keys are tracked now (with a breaker or, until their first failure, a count of successes). */
  get size(): number {
    return this.entries.size;
  }

  /** The guard of `route` at `origin`'s key: a route failing while its siblings succeed gets a breaker of its own. */
  routeGuard(origin: Guard, route: string): Guard {
    return this.entries.getOrCreate(`${origin.key} ${route}`, (key) => new Guard(this, key, origin));
  }

  /**
   * The breaker `plugin.breaker(keyOrUrl)` shows: the one with that key; for a URL, the one of the
   * route it names (any method) when that route has a breaker of its own, else its origin's.
   */
  find(keyOrUrl: string, origin: string, path: string): CircuitBreakerView | undefined {
    const exact = this.entries.get(keyOrUrl);
    if (exact !== undefined) return exact.breaker as unknown as CircuitBreakerView;
    const failing = this.entries.get(origin)?.failing;
    for (const [route, { guard }] of failing ?? []) {
      if (guard !== undefined && routePattern(route.slice(route.indexOf(' ') + 1)).test(path)) {
        return guard.breaker as unknown as CircuitBreakerView;
      }
    }
    return this.peek(origin);
  }

  /** The counting state for `key`, made on first use (its breaker on first failure). */
  for(key: string): Guard {
    // The shared interval starts with the timers of the moment: on first use, and after fake timers came or went.
    if (this.armedWith !== setInterval && this.armedWith !== null) {
      this.stop?.();
      const clear = clearInterval;
      const { rollingCountTimeout, rollingCountBuckets } = this.options;
      const interval = setInterval(
        () => this.rotate(),
        Math.max(1, Math.floor(rollingCountTimeout / rollingCountBuckets)),
      );
      interval.unref?.();
      this.armedWith = setInterval;
      this.stop = () => clear(interval);
    }
    return this.entries.getOrCreate(key, this.create);
  }

  /**
   * The breaker for `key` if any call has used that key (for events and stats; see
   * `plugin.breaker()`): made now if the key has only succeeded so far, holding those successes.
   */
  peek(key: string): CircuitBreakerView | undefined {
    return this.entries.get(key)?.breaker as CircuitBreakerView | undefined;
  }

  /** Shuts every breaker down, stops the shared interval and stops listening to the fleet. */
  async close(): Promise<void> {
    // A call still in flight may look a key up after this: it gets a guard, never a new interval.
    this.armedWith = null;
    this.stop?.();
    for (const entry of this.entries.values()) entry.existing?.shutdown();
    this.entries.clear();
    await this.shared?.close();
  }

  /** The open-state wait after `failedProbes` failed probes in a row: doubled each time, capped, ±25 %. */
  private openWait(failedProbes: number): number {
    const { resetTimeout, maxResetTimeout } = this.options;
    const wait = Math.min(maxResetTimeout, resetTimeout * 2 ** failedProbes);
    return Math.round(wait * (0.75 + 0.5 * this.random()));
  }

  /** Turns every breaker's window by one bucket, then points each guard at its new bucket. */
  private rotate(): void {
    this.turn += 1;
    this.rotation.emit();
    for (const entry of this.entries.values()) {
      const breaker = entry.existing;
      if (breaker !== undefined) entry.bucket = breaker.status.window[0]!;
    }
  }

  private readonly create = (key: string): Guard => new Guard(this, key);

  /** Builds `entry`'s opossum breaker, with the listeners that back off its wait and report its state. */
  make(entry: Guard): { breaker: OriginBreaker; options: CircuitBreaker.Options } {
    const key = entry.key;
    const options: CircuitBreaker.Options = { ...this.opossumOptions, name: key, resetTimeout: this.openWait(0) };
    const breaker: OriginBreaker = new CircuitBreaker(run, options);
    // opossum's own listeners are in place already; any added from now on is someone else's.
    (breaker as unknown as EventEmitterLike).on('newListener', (event: string | symbol) => {
      if (event === 'fire' || event === 'success') entry.observed = true;
    });
    let failedProbes = 0;
    // At half-open, set the wait that applies if this probe fails; a success resets it.
    breaker.on('halfOpen', () => {
      failedProbes += 1;
      options.resetTimeout = this.openWait(failedProbes);
    });
    breaker.on('close', () => {
      failedProbes = 0;
      options.resetTimeout = this.openWait(0);
    });
    const report = this.onStateChange;
    if (report) {
      const where =
        entry.parent === undefined
          ? { origin: key }
          : { origin: entry.parent.key, scope: key.slice(entry.parent.key.length + 1) };
      const tell = (state: CircuitState) => () => report({ ...where, state });
      breaker.on('open', tell('open'));
      breaker.on('halfOpen', tell('half-open'));
      breaker.on('close', tell('closed'));
    }
    const shared = this.shared;
    if (shared) {
      const announce = (state: 'open' | 'closed') => () =>
        this.applyingRemote || shared.announce(key, state, options.resetTimeout ?? this.options.resetTimeout);
      breaker.on('open', announce('open'));
      breaker.on('close', announce('closed'));
    }
    return { breaker, options };
  }
}

/**
 * The one clock every breaker's rolling window turns on. opossum (and the browser build's
 * `lite-circuit.ts`) need only `on`, `removeListener` and `listenerCount` from their
 * `rotateBucketController`; this is that much of an EventEmitter, without pulling `node:events` into
 * browser bundles or warning past ten listeners.
 */
export class Rotation {
  private readonly listeners = new Set<() => void>();
  on(_event: string, listener: () => void): this {
    this.listeners.add(listener);
    return this;
  }
  removeListener(_event: string, listener: () => void): this {
    this.listeners.delete(listener);
    return this;
  }
  listenerCount(_event: string, listener?: () => void): number {
    return listener === undefined ? this.listeners.size : this.listeners.has(listener) ? 1 : 0;
  }
  emit(): void {
    for (const listener of this.listeners) listener();
  }
}
