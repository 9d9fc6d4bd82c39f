/**
 * The breaker the browser build carries instead of opossum (which needs Node's `events`, ~6 kB
 * brotli of the two together). It is the part of opossum's surface the plugin and its users touch,
 * with opossum's semantics, so `breaker.ts` drives either one unchanged and the same breaker tests
 * pass against both (`jest.lite-breaker.config.js` maps `opossum` here):
 *
 * - states closed → open → half-open (after `options.resetTimeout`, read at every open) → closed on
 *   a success or open again on a failure; `pendingClose` lets one probe through while half-open;
 * - `fire(...args)` emits `fire`, refuses while open (`reject`, code `EOPENBREAKER`), runs the action,
 *   emits `success` or, unless `errorFilter` excuses the error, `failure`, and opens when the failure
 *   rate of the rolling window is above `errorThresholdPercentage` with at least `volumeThreshold` fires;
 * - the counts live in `status.window` (current bucket first), turned by `rotateBucketController`'s
 *   `rotate` event or an own unref'd interval, and summed by `stats`;
 * - events through `on` / `once` / `removeListener` / `emit`, including `newListener`.
 *
 * Not carried: timeouts (axios owns them: the plugin passes `timeout: false`), fallbacks, caches,
 * coalescing, semaphores, warm-up, health checks, snapshots and latency percentiles.
 */
import { Emitter } from './emitter';

/** One bucket of the rolling window, named as opossum names its counts. */
export interface Bucket {
  fires: number;
  successes: number;
  failures: number;
  rejects: number;
  timeouts: number;
  fallbacks: number;
  semaphoreRejections: number;
  latencyTimes: number[];
  [count: string]: unknown;
}

/** The options read here (opossum's names); others are accepted and ignored. */
export interface LiteOptions {
  name?: string;
  resetTimeout?: number;
  errorThresholdPercentage?: number;
  volumeThreshold?: number;
  rollingCountTimeout?: number;
  rollingCountBuckets?: number;
  errorFilter?: (error: unknown, ...args: unknown[]) => boolean;
  rotateBucketController?: Pick<Emitter, 'on' | 'removeListener'>;
  [option: string]: unknown;
}

type State = 'closed' | 'open' | 'half-open' | 'shutdown';

const bucket = (): Bucket => ({
  fires: 0,
  successes: 0,
  failures: 0,
  rejects: 0,
  timeouts: 0,
  fallbacks: 0,
  semaphoreRejections: 0,
  latencyTimes: [],
});

function breakerError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The rolling window: `window[0]` is the current bucket, `window[n]` the one n turns back. */
class Status {
  private readonly buckets: Bucket[];

  constructor(size: number) {
    this.buckets = Array.from({ length: size }, bucket);
  }

  get window(): Bucket[] {
    return this.buckets.slice();
  }

  readonly rotate = (): void => {
    this.buckets.pop();
    this.buckets.unshift(bucket());
  };

  count(name: string, latencyMs?: number): void {
    const current = this.buckets[0]!;
    (current[name] as number)++;
    if (latencyMs !== undefined) current.latencyTimes.push(latencyMs);
  }

  /** The window's counts summed (latencies are not kept: `latencyMean` is -1, as opossum's with percentiles off). */
  get stats(): Bucket {
    const total: Bucket = { ...bucket(), latencyMean: -1 };
    for (const b of this.buckets) {
      for (const key of Object.keys(b)) if (typeof b[key] === 'number') (total[key] as number) += b[key];
    }
    return total;
  }
}

export default class LiteCircuit<Args extends unknown[] = unknown[], Result = unknown> extends Emitter {
  readonly options: LiteOptions;
  readonly status: Status;
  private state: State = 'closed';
  private probe = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private interval: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly action: (...args: Args) => Promise<Result>,
    options: LiteOptions = {},
  ) {
    super();
    this.options = options;
    options.resetTimeout ??= 30_000;
    options.errorThresholdPercentage ??= 50;
    options.rollingCountTimeout ??= 10_000;
    options.rollingCountBuckets ??= 10;
    this.status = new Status(options.rollingCountBuckets);
    const rotation = options.rotateBucketController;
    if (rotation === undefined) {
      this.interval = setInterval(this.status.rotate, options.rollingCountTimeout / options.rollingCountBuckets);
      (this.interval as { unref?: () => void }).unref?.();
    } else rotation.on('rotate', this.status.rotate);
    // The counts follow the events, so a listener can count by emitting, as with opossum.
    this.on('fire', () => this.status.count('fires'));
    this.on('reject', () => this.status.count('rejects'));
    this.on('success', (_result: unknown, latencyMs?: number) => {
      this.status.count('successes', latencyMs ?? 0);
      if (this.state === 'half-open') this.close();
    });
    this.on('failure', (_error: unknown, latencyMs?: number) => this.status.count('failures', latencyMs ?? 0));
    this.on('open', () => {
      this.timer = setTimeout(() => {
        this.state = 'half-open';
        this.probe = true;
        this.emit('halfOpen', this.options.resetTimeout);
      }, this.options.resetTimeout);
      (this.timer as { unref?: () => void }).unref?.();
    });
  }

  get name(): string {
    return this.options.name ?? 'breaker';
  }
  get closed(): boolean {
    return this.state === 'closed';
  }
  get opened(): boolean {
    return this.state === 'open';
  }
  get halfOpen(): boolean {
    return this.state === 'half-open';
  }
  get isShutdown(): boolean {
    return this.state === 'shutdown';
  }
  get pendingClose(): boolean {
    return this.probe;
  }
  get enabled(): boolean {
    return this.state !== 'shutdown';
  }
  get volumeThreshold(): number {
    return this.options.volumeThreshold ?? 0;
  }
  get stats(): Bucket {
    return this.status.stats;
  }

  open(): void {
    if (this.state === 'open') return;
    this.state = 'open';
    this.probe = false;
    this.emit('open');
  }

  close(): void {
    if (this.state === 'closed') return;
    clearTimeout(this.timer);
    this.state = 'closed';
    this.probe = false;
    this.emit('close');
  }

  shutdown(): void {
    this.emit('shutdown');
    this.options.rotateBucketController?.removeListener('rotate', this.status.rotate);
    this.removeAllListeners();
    clearTimeout(this.timer);
    clearInterval(this.interval);
    this.state = 'shutdown';
  }

  fire(...args: Args): Promise<Result> {
    if (this.state === 'shutdown') return Promise.reject(breakerError('The circuit has been shutdown.', 'ESHUTDOWN'));
    this.emit('fire', args);
    if (this.state !== 'closed' && !this.probe) {
      const error = breakerError('Breaker is open', 'EOPENBREAKER');
      this.emit('reject', error);
      return Promise.reject(error);
    }
    this.probe = false;
    const started = Date.now();
    let outcome: Promise<Result>;
    try {
      outcome = Promise.resolve(this.action(...args));
    } catch (error) {
      outcome = Promise.reject(error);
    }
    return outcome.then(
      (result) => {
        this.emit('success', result, Date.now() - started);
        return result;
      },
      (error: unknown) => {
        const latencyMs = Date.now() - started;
        if (this.options.errorFilter?.(error, ...args) === true) this.emit('success', error, latencyMs);
        else this.failed(error, latencyMs, args);
        throw error;
      },
    );
  }

  /** Counts a failure, then opens on the window's failure rate (or at once, half-open). */
  private failed(error: unknown, latencyMs: number, args: Args): void {
    this.emit('failure', error, latencyMs, args);
    const halfOpen = this.state === 'half-open';
    const { fires, failures } = this.stats;
    if (fires < this.volumeThreshold && !halfOpen) return;
    if (halfOpen || (failures / fires) * 100 > this.options.errorThresholdPercentage!) this.open();
  }
}
