import type CircuitBreaker from 'opossum';
import type { AxiosResponse } from 'axios';
import { SlotCounts } from './slot-counts';

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
