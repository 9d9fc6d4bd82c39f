import CircuitBreaker from 'opossum';
import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { failureKind } from './classify';
import type { ResolvedOptions, ResolvedPluginOptions } from './options';
import { BoundedMap } from './origin';
import type { CircuitState, CircuitStateChange } from './types';

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

  constructor(
    options: Exclude<ResolvedPluginOptions['breaker'], false>,
    private readonly onStateChange: ((change: CircuitStateChange) => void) | undefined,
  ) {
    const { maxOrigins, ...rest } = options;
    this.opossumOptions = {
      rollingPercentilesEnabled: false,
      ...rest,
      timeout: false,
      errorFilter: isNotDownstreamFailure as (error: unknown) => boolean,
      rotateBucketController: this.rotation as unknown as CircuitBreaker.Options['rotateBucketController'],
      enableSnapshots: false,
    };
    this.breakers = new BoundedMap(maxOrigins, (breaker) => breaker.shutdown());
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
  peek(origin: string): OriginBreaker | undefined {
    return this.breakers.get(origin);
  }

  /** Shuts every breaker down and stops the shared interval. */
  close(): void {
    for (const breaker of this.breakers.values()) breaker.shutdown();
    this.breakers.clear();
    if (this.interval !== undefined) clearInterval(this.interval);
    this.interval = undefined;
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
    return breaker;
  }
}
