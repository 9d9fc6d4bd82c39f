import CircuitBreaker from 'opossum';
import type { AxiosResponse } from 'axios';
import type { ResolvedBreakerOptions } from '../policy/options';
import { BoundedMap } from './origins';
import { SlotCounts } from './slot-counts';
import type { BreakerSync, CircuitBreakerView, CircuitState, CircuitStateChange } from '../types';

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

const run = (call: GuardedCall): Promise<AxiosResponse> => call.run();
// opossum counts a filtered error as a success: a 4xx or a cancel says the origin is answering.
const notDownstream = (error: unknown, call: GuardedCall): boolean => !call.isDownstreamFailure(error);

/**
 * A key's breaker, made only once a call under that key has failed, and its counting state. Calls
 * that run under a **closed** breaker skip `fire`'s per-call machinery (an arguments copy, a
 * semaphore, a wrapping promise, two clock reads, a latency sample): each call runs, and its outcome
 * is counted when it ends, so calls in flight do not dilute the failure rate. See `countSuccess`
 * and `countFailure`.
 *
 * Until a key's first failure there is no opossum breaker at all (building one costs tens of µs,
 * which a fan-out to a new host on every call pays on every call): its successes are kept as a
 * count per turn of the shared rolling window, and handed to the breaker's window, bucket by bucket,
 * when it is made. So the breaker opens exactly where one made on the first call would have.
 */
export class Guard {
  private made: OriginBreaker | undefined;
  /** The options object opossum reads its open-state wait from at every `open` (once made). */
  options: CircuitBreaker.Options | undefined;
  /** `breaker.status.window[0]`, re-read after every rotation (once made). */
  bucket: CircuitBreaker.Bucket | undefined;
  /** Someone listens to `fire` or `success`: successes are emitted, not only counted. */
  observed = false;
  /** Successes before the breaker exists, per turn of the rolling window. */
  private early: SlotCounts | undefined;

  constructor(
    private readonly maker: BreakerMaker,
    readonly key: string,
  ) {}

  /** The breaker, made on first use (a failure, a probe, a state from the fleet, the accessor). */
  get breaker(): OriginBreaker {
    return this.made ?? this.make();
  }

  /** The breaker if it exists: none means closed, with nothing but successes counted. */
  get existing(): OriginBreaker | undefined {
    return this.made;
  }

  /** No breaker yet, or a closed one. */
  get closed(): boolean {
    return this.made?.closed ?? true;
  }

  /** Counts a successful call (`countSuccess`) and hands its response on: a `then` callback made once per key. */
  readonly succeed = (response: AxiosResponse): AxiosResponse => {
    countSuccess(this, response);
    return response;
  };

  /** Counts a success while there is no breaker, in the current turn of the window. */
  countEarly(): void {
    const turn = this.maker.turn;
    if (this.early === undefined) this.early = new SlotCounts(this.maker.buckets, turn);
    else this.early.add(turn);
  }

  private make(): OriginBreaker {
    const { breaker, options } = this.maker.make(this);
    this.made = breaker;
    this.options = options;
    const window = breaker.status.window;
    // window[0] is the current turn's bucket, window[n] the one n turns back.
    this.early?.forEach((turn, count) => {
      const bucket = window[this.maker.turn - turn];
      if (bucket === undefined) return; // older than the window
      bucket.fires += count;
      bucket.successes += count;
    });
    this.early = undefined;
    this.bucket = window[0]!;
    return breaker;
  }
}

/** What a `Guard` needs from its registry: the rotation's turn, the window's size, and a breaker. */
interface BreakerMaker {
  readonly turn: number;
  readonly buckets: number;
  make(guard: Guard): { breaker: OriginBreaker; options: CircuitBreaker.Options };
}

const NO_ARGS: unknown[] = [];

/** opossum's types list its own events only; a breaker is a Node-style EventEmitter all the same. */
type EventEmitterLike = { on(event: 'newListener', listener: (event: string | symbol) => void): unknown };

/**
 * Counts one successful call that ran while the breaker was closed, as `fire` would have: a fire
 * and a success in the current bucket of opossum's window (which its `stats`, its volume threshold
 * and its open decision read). While nobody else listens, that is two increments; with a listener
 * (or if the breaker left the closed state meanwhile, where opossum's own `success` listener closes a
 * half-open breaker) the `fire` and `success` events are emitted instead, and opossum counts them.
 * Counted, a success keeps no latency sample; emitted, it keeps opossum's usual one, pushed into
 * the window even with percentiles off (~1 MB per 100 000 calls within the window).
 */
function countSuccess(guard: Guard, response: AxiosResponse): void {
  const breaker = guard.existing;
  if (breaker === undefined) {
    guard.countEarly();
    return;
  }
  if (!guard.observed && breaker.closed) {
    guard.bucket!.fires += 1;
    guard.bucket!.successes += 1;
    return;
  }
  breaker.emit('fire', NO_ARGS);
  breaker.emit('success', response);
}

/**
 * Hands the final failure of a call that ran while the breaker was closed to opossum, through
 * `fire`, so opossum's `errorFilter` judges it and opossum decides, as ever, whether it opens the
 * breaker. The caller gets the call's own error whatever opossum makes of it (counted, or refused
 * because another call opened the breaker meanwhile), so nothing waits for this: opossum settles
 * it a tick later, before the error has travelled through axios to the caller.
 */
export function countFailure(guard: Guard, isDownstreamFailure: (error: unknown) => boolean, error: unknown): void {
  const replay: GuardedCall = { run: () => Promise.reject(error), isDownstreamFailure };
  guard.breaker.fire(replay).catch(() => undefined);
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
  /** How many times the rolling windows have turned: dates the successes of keys without a breaker. */
  turn = 0;
  /** Buckets per rolling window. */
  readonly buckets: number;
  private interval: ReturnType<typeof setInterval> | undefined;
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

  /** How many keys are tracked now (with a breaker or, until their first failure, a count of successes). */
  get size(): number {
    return this.entries.size;
  }

  /** The counting state for `key`, made on first use (its breaker on first failure). */
  for(key: string): Guard {
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
    for (const entry of this.entries.values()) entry.existing?.shutdown();
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

  /** Turns every breaker's window by one bucket, then points each guard at its new bucket. */
  private rotate(): void {
    this.turn += 1;
    this.rotation.emit();
    for (const entry of this.entries.values()) {
      const breaker = entry.existing;
      if (breaker !== undefined) entry.bucket = breaker.status.window[0]!;
    }
  }

  private readonly create = (key: string): Guard => {
    if (this.interval === undefined) {
      const { rollingCountTimeout, rollingCountBuckets } = this.options;
      const every = Math.max(1, Math.floor(rollingCountTimeout / rollingCountBuckets));
      this.interval = setInterval(() => this.rotate(), every);
      this.interval.unref?.();
    }
    return new Guard(this, key);
  };

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
