import CircuitBreaker from 'opossum';
import type { AxiosResponse } from 'axios';
import type { ResolvedBreakerOptions } from './options';
import { BoundedMap } from './origin';
import type { BreakerSync, CircuitBreakerView, CircuitState, CircuitStateChange } from './types';

/**
 * What a breaker guards: one logical call with all its attempts. The breaker counts calls, not
 * attempts, so a failure that a retry absorbs never counts against the origin: it exists to fail
 * fast when calls fail anyway, never to fail a call its retries would have saved.
 */
export interface GuardedCall {
  /** Runs the call's attempts; settles with the call's outcome. */
  run(): Promise<AxiosResponse>;
  /** Whether the call's final failure is the downstream's fault (a retryable status or a transport failure). */
  isDownstreamFailure(error: unknown): boolean;
}

/** One opossum breaker; it is fired once per logical call. */
export type OriginBreaker = CircuitBreaker<[GuardedCall], AxiosResponse>;

const guard = (call: GuardedCall): Promise<AxiosResponse> => call.run();
// opossum counts a filtered error as a success: a 4xx or a cancel says the origin is answering.
const notDownstream = (error: unknown, call: GuardedCall): boolean => !call.isDownstreamFailure(error);

/**
 * Runs a call under a **closed** breaker without `fire`'s per-call machinery (an arguments copy, a
 * semaphore, a wrapping promise, two clock reads): the call runs, then its
 * outcome is handed to opossum. A success becomes the `fire` and `success` events that opossum's own
 * statistics count; a failure is replayed through `fire`, so opossum's `errorFilter` judges it and
 * opossum decides, as ever, whether it opens the breaker. Counted when they end, calls in flight do
 * not dilute the failure rate. Open and half-open breakers go through `fire` (see the adapter).
 */
export function runClosed(breaker: OriginBreaker, call: GuardedCall): Promise<AxiosResponse> {
  return call.run().then(
    (response) => {
      breaker.emit('fire', NO_ARGS);
      breaker.emit('success', response);
      return response;
    },
    (error: unknown) => replayFailure(breaker, call, error),
  );
}

const NO_ARGS: unknown[] = [];

function replayFailure(breaker: OriginBreaker, call: GuardedCall, error: unknown): Promise<never> {
  const replay: GuardedCall = {
    run: () => Promise.reject(error),
    isDownstreamFailure: (failure) => call.isDownstreamFailure(failure),
  };
  // Whatever opossum makes of it (counted, or refused because another call opened the breaker
  // meanwhile), the caller gets the call's own error.
  const rethrow = (): never => {
    throw error;
  };
  return breaker.fire(replay).then(rethrow, rethrow);
}

/** A breaker and the options object opossum reads its open-state wait from at every `open`. */
interface Entry {
  breaker: OriginBreaker;
  options: CircuitBreaker.Options;
}

/**
 * The one clock every breaker's rolling window turns on. opossum needs only `on`, `removeListener`
 * and `listenerCount` from its `rotateBucketController`; this is that much of an EventEmitter,
 * without pulling `node:events` into browser bundles or warning past ten listeners.
 */
class Rotation {
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
  private readonly rotation = new Rotation();
  private interval: ReturnType<typeof setInterval> | undefined;
  private readonly entries: BoundedMap<Entry>;
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
    this.entries = new BoundedMap(options.maxOrigins, (entry) => entry.breaker.shutdown());
    this.shared?.start((key, state, waitMs) => {
      const entry = this.entry(key);
      this.applyingRemote = true;
      try {
        if (state === 'open') {
          // The fleet backs off together: the announcer's wait, or ours.
          if (waitMs !== undefined) entry.options.resetTimeout = Math.min(waitMs, this.options.maxResetTimeout);
          entry.breaker.open();
        } else entry.breaker.close();
      } finally {
        this.applyingRemote = false;
      }
    });
  }

  /** Claims the fleet's one half-open probe for `key`. */
  acquireProbe(key: string): Promise<boolean> {
    if (this.shared === undefined) return Promise.resolve(true);
    return this.shared.acquireProbe(key, this.entry(key).options.resetTimeout ?? this.options.resetTimeout);
  }

  /** How many breakers exist now. */
  get size(): number {
    return this.entries.size;
  }

  /** The breaker for `key`, made on first use. */
  for(key: string): OriginBreaker {
    return this.entry(key).breaker;
  }

  /** The breaker for `key` if one exists (for events and stats; see `plugin.breaker()`). */
  peek(key: string): CircuitBreakerView | undefined {
    return this.entries.get(key)?.breaker as CircuitBreakerView | undefined;
  }

  /** Shuts every breaker down, stops the shared interval and stops listening to the fleet. */
  async close(): Promise<void> {
    for (const entry of this.entries.values()) entry.breaker.shutdown();
    this.entries.clear();
    if (this.interval !== undefined) clearInterval(this.interval);
    this.interval = undefined;
    await this.shared?.close();
  }

  /** The open-state wait after `failedProbes` failed probes in a row: doubled each time, capped, ±25 %. */
  private openWait(failedProbes: number): number {
    const { resetTimeout, maxResetTimeout } = this.options;
    const wait = Math.min(maxResetTimeout, resetTimeout * 2 ** failedProbes);
    return Math.round(wait * (0.75 + 0.5 * this.random()));
  }

  private entry(key: string): Entry {
    return this.entries.getOrCreate(key, () => this.create(key));
  }

  private create(key: string): Entry {
    if (this.interval === undefined) {
      const { rollingCountTimeout, rollingCountBuckets } = this.options;
      const every = Math.max(1, Math.floor(rollingCountTimeout / rollingCountBuckets));
      this.interval = setInterval(() => this.rotation.emit(), every);
      this.interval.unref?.();
    }
    const options: CircuitBreaker.Options = { ...this.opossumOptions, name: key, resetTimeout: this.openWait(0) };
    const breaker: OriginBreaker = new CircuitBreaker(guard, options);
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
      const tell = (state: CircuitState) => () => report({ origin: key, state });
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
