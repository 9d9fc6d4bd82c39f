import CircuitBreaker from 'opossum';
import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { failureKind } from './classify';
import type { ResolvedOptions, ResolvedPluginOptions } from './options';
import { BoundedMap } from './origin';
import type { CircuitState, CircuitStateChange } from './types';

/**
 * The origin's breaker as `plugin.breaker(url)` hands it out: an opossum `CircuitBreaker`, typed by
 * the part a user needs (state, rolling stats, events), so the package's types do not depend on
 * opossum's.
 */
export interface CircuitBreakerView {
  /** The origin, `scheme://host:port`. */
  readonly name: string;
  readonly opened: boolean;
  readonly halfOpen: boolean;
  readonly closed: boolean;
  /** `true` once the plugin closed or evicted it (past `maxOrigins`); it is then unused. */
  readonly isShutdown: boolean;
  /** opossum's rolling-window counts. */
  readonly stats: { fires: number; failures: number; successes: number; rejects: number; [count: string]: unknown };
  /** opossum's events: `open`, `halfOpen`, `close`, `fire`, `success`, `failure`, `reject`, `shutdown`, … */
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
  /** Forces the breaker open (for maintenance windows); it half-opens after `resetTimeout`. */
  open(): void;
  /** Forces the breaker closed. */
  close(): void;
}

/** One opossum breaker guards every attempt to one origin; it calls whichever adapter the call uses. */
export type OriginBreaker = CircuitBreaker<[AxiosAdapter, InternalAxiosRequestConfig, ResolvedOptions], AxiosResponse>;

// The options argument is for errorFilter, which opossum hands the fire arguments.
function send(
  adapter: AxiosAdapter,
  config: InternalAxiosRequestConfig,
  _options: ResolvedOptions,
): Promise<AxiosResponse> {
  return adapter(config);
}

/**
 * Failures that are the downstream's fault count against the breaker; a 4xx, a cancel or a
 * non-HTTP error says nothing about its health. opossum treats a filtered error as a success.
 */
function isNotDownstreamFailure(
  error: unknown,
  _adapter: AxiosAdapter,
  _config: unknown,
  options: ResolvedOptions,
): boolean {
  const kind = failureKind(error, options);
  return kind !== 'status' && kind !== 'network';
}

/**
 * Shares breaker state between processes (see `axios-resilience/redis`): when one process's breaker
 * for an origin opens or closes, the others follow, and a half-open probe is one per fleet.
 */
export interface BreakerSync {
  /** Starts listening; `apply` is called for every state another process announces. */
  start(apply: (origin: string, state: 'open' | 'closed') => void): void;
  /** Announces a local open (for `resetTimeoutMs`) or close. Must not throw or reject. */
  announce(origin: string, state: 'open' | 'closed', resetTimeoutMs: number): void;
  /** Claims the one half-open probe for `origin`; resolves `true` when the store cannot be reached. */
  acquireProbe(origin: string, ttlMs: number): Promise<boolean>;
  /** Stops listening. */
  close(): Promise<void>;
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
 * The per-origin breakers of one plugin. Many origins must not mean many timers: every breaker's
 * rolling window is rotated by one shared, unref'd interval, snapshots are off, and the number of
 * breakers is bounded (the least recently used is shut down).
 */
export class BreakerRegistry {
  private readonly rotation = new Rotation();
  private interval: ReturnType<typeof setInterval> | undefined;
  private readonly breakers: BoundedMap<OriginBreaker>;
  private readonly opossumOptions: CircuitBreaker.Options;
  /** Set while a state another process announced is applied, so it is not announced back. */
  private applyingRemote = false;
  /** Shares state with other processes, when configured. */
  readonly shared: BreakerSync | undefined;

  constructor(
    options: Exclude<ResolvedPluginOptions['breaker'], false>,
    private readonly onStateChange: ((change: CircuitStateChange) => void) | undefined,
  ) {
    const { maxOrigins, shared, ...rest } = options;
    this.shared = shared as BreakerSync | undefined;
    this.opossumOptions = {
      rollingPercentilesEnabled: false,
      ...rest,
      timeout: false,
      errorFilter: isNotDownstreamFailure as (error: unknown) => boolean,
      rotateBucketController: this.rotation as unknown as CircuitBreaker.Options['rotateBucketController'],
      enableSnapshots: false,
    };
    this.breakers = new BoundedMap(maxOrigins, (breaker) => breaker.shutdown());
    this.shared?.start((origin, state) => {
      const breaker = this.for(origin);
      this.applyingRemote = true;
      try {
        if (state === 'open') breaker.open();
        else breaker.close();
      } finally {
        this.applyingRemote = false;
      }
    });
  }

  /** Claims the fleet's one half-open probe for `origin`. */
  acquireProbe(origin: string): Promise<boolean> {
    return this.shared === undefined
      ? Promise.resolve(true)
      : this.shared.acquireProbe(origin, this.opossumOptions.resetTimeout ?? 30000);
  }

  /** How many breakers exist now. */
  get size(): number {
    return this.breakers.size;
  }

  /** The breaker for `origin`, made on first use. */
  for(origin: string): OriginBreaker {
    return this.breakers.getOrCreate(origin, () => this.create(origin));
  }

  /** The breaker for `origin` if one exists (for events and stats; see `plugin.breaker()`). */
  peek(origin: string): CircuitBreakerView | undefined {
    return this.breakers.get(origin) as CircuitBreakerView | undefined;
  }

  /** Shuts every breaker down, stops the shared interval and stops listening to the fleet. */
  async close(): Promise<void> {
    for (const breaker of this.breakers.values()) breaker.shutdown();
    this.breakers.clear();
    if (this.interval !== undefined) clearInterval(this.interval);
    this.interval = undefined;
    await this.shared?.close();
  }

  private create(origin: string): OriginBreaker {
    if (this.interval === undefined) {
      const buckets = this.opossumOptions.rollingCountBuckets ?? 10;
      const every = Math.max(1, Math.floor((this.opossumOptions.rollingCountTimeout ?? 10000) / buckets));
      this.interval = setInterval(() => this.rotation.emit(), every);
      this.interval.unref?.();
    }
    const breaker: OriginBreaker = new CircuitBreaker(send, { ...this.opossumOptions, name: origin });
    const report = this.onStateChange;
    if (report) {
      const tell = (state: CircuitState) => () => report({ origin, state });
      breaker.on('open', tell('open'));
      breaker.on('halfOpen', tell('half-open'));
      breaker.on('close', tell('closed'));
    }
    const shared = this.shared;
    if (shared) {
      const resetTimeout = this.opossumOptions.resetTimeout ?? 30000;
      breaker.on('open', () => this.applyingRemote || shared.announce(origin, 'open', resetTimeout));
      breaker.on('close', () => this.applyingRemote || shared.announce(origin, 'closed', resetTimeout));
    }
    return breaker;
  }
}
