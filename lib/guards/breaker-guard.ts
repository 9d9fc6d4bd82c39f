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
 * is counted when it ends, so calls in flight do not dilute the failure rate. See `succeeded`
 * and `countFailure`.
 *
 * Until a key's first failure there is no opossum breaker at all (building one costs tens of µs,
 * which a fan-out to a new host on every call pays on every call): its successes are kept as a
 * count per turn of the shared rolling window, and handed to the breaker's window, bucket by bucket,
 * when it is made. So the breaker opens exactly where one made on the first call would have.
 */
export class Guard {
  /**
   * The breaker if it exists (none means closed, with nothing but successes counted). A field, not a
   * getter: every retry's plan reads it. Set only by `breaker` (made on first use).
   */
  existing: OriginBreaker | undefined;
  /** A route's own breaker, not an origin's. */
  readonly route: boolean;
  /** The options object opossum reads its open-state wait from at every `open` (once made). */
  options: CircuitBreaker.Options | undefined;
  /** `breaker.status.window[0]`, re-read after every rotation (once made). */
  bucket: CircuitBreaker.Bucket | undefined;
  /** Someone listens to `fire` or `success`: successes are emitted, not only counted. */
  observed = false;
  /** Successes before the breaker exists, per turn of the rolling window. */
  private early: SlotCounts | undefined;
  /** Successful calls counted here, ever: a route's failures began before some of them, or after all. */
  ok = 0;
  /**
   * The routes of this origin whose last calls failed (made at the first such failure): when their
   * failures began (as `ok` then), and the breaker of a route failing while its siblings succeed.
   */
  failing: Map<string, FailingRoute> | undefined;

  constructor(
    private readonly maker: BreakerMaker,
    readonly key: string,
    /** For a route's own breaker (`${origin key} ${route}`): its origin's guard, which counts its successes too. */
    readonly parent?: Guard,
  ) {
    this.route = parent !== undefined;
  }

  /** The breaker, made on first use (a failure, a probe, a state from the fleet, the accessor). */
  get breaker(): OriginBreaker {
    return this.existing ?? this.make();
  }

  /** No breaker yet, or a closed one. */
  get closed(): boolean {
    return this.existing?.closed ?? true;
  }

  /**
   * Counts a successful call to `endpoint` (`undefined` under a `breaker.key` of the caller's: no
   * routes), as `fire` would have counted one that ran while the breaker was closed: a fire and a
   * success in the current bucket of opossum's window (which its `stats`, its volume threshold and
   * its open decision read). While nobody else listens, that is two increments; with a listener (or
   * if the breaker left the closed state meanwhile, where opossum's own `success` listener closes a
   * half-open breaker) the `fire` and `success` events are emitted instead, and opossum counts them.
   * Counted, a success keeps no latency sample; emitted, it keeps opossum's usual one, pushed into
   * the window even with percentiles off (~1 MB per 100 000 calls within the window). Before the
   * breaker exists, the success is kept for its turn of the window.
   */
  succeeded(response: AxiosResponse, endpoint: (() => string) | undefined): void {
    this.ok += 1;
    // A route's success is a sibling's success to the origin's other failing routes.
    if (this.parent !== undefined) this.parent.ok += 1;
    const breaker = this.existing;
    if (breaker === undefined) {
      const turn = this.maker.turn;
      if (this.early === undefined) this.early = new SlotCounts(this.maker.buckets, turn);
      else this.early.add(turn);
    } else if (!this.observed && breaker.closed) {
      this.bucket!.fires += 1;
      this.bucket!.successes += 1;
    } else {
      breaker.emit('fire', NO_ARGS);
      breaker.emit('success', response);
    }
    // The route's failing streak, if it had one and no breaker of its own, is over.
    const failing = this.failing;
    if (failing === undefined || endpoint === undefined) return;
    const route = endpoint();
    if (failing.get(route)?.guard === undefined) failing.delete(route);
  }

  /** The breaker of `route` here, when the route was found failing while its siblings succeed. */
  routeGuard(route: string): Guard | undefined {
    return this.failing?.get(route)?.guard;
  }

  /**
   * An attempt to `route` failed (downstream): the route's failures began now, unless they had
   * already. Noted at the attempt, not the call's end: calls that give up together (a budget spent)
   * began failing apart, with their siblings' successes between.
   */
  failureBegan(route: string): FailingRoute {
    const failing = (this.failing ??= new Map());
    let entry = failing.get(route);
    if (entry === undefined) {
      if (failing.size >= FAILING_ROUTES_KEPT) failing.delete(failing.keys().next().value!);
      failing.set(route, (entry = { since: this.ok, guard: undefined }));
    }
    return entry;
  }

  /**
   * Where a call to `route` that ended in a downstream failure is counted: the route's own breaker
   * once the route is failing while its siblings succeed (a success was counted here since its
   * failures began), else this origin's. So one broken route opens its own breaker and no other
   * route's, while an origin down on every route (no success anywhere) opens the origin's as fast
   * as ever.
   */
  failureTarget(route: string): Guard {
    const entry = this.failureBegan(route);
    if (entry.guard === undefined && this.ok > entry.since) entry.guard = this.maker.routeGuard(this, route);
    return entry.guard ?? this;
  }

  /**
   * The successes per turn of the window lately (a second by default): the larger of the last whole
   * turn and the one under way; 0 before any. What a rate limiter engaging here starts from.
   */
  servedPerTurn(): number {
    const breaker = this.existing;
    if (breaker !== undefined) {
      const window = breaker.status.window;
      return Math.max(window[0]?.successes ?? 0, window[1]?.successes ?? 0);
    }
    let most = 0;
    const turn = this.maker.turn;
    this.early?.forEach((at, count) => {
      if (at >= turn - 1) most = Math.max(most, count);
    });
    return most;
  }

  private make(): OriginBreaker {
    const { breaker, options } = this.maker.make(this);
    this.existing = breaker;
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

/** What a `Guard` needs from its registry: the rotation's turn, the window's size, a breaker, a route's guard. */
interface BreakerMaker {
  readonly turn: number;
  readonly buckets: number;
  make(guard: Guard): { breaker: OriginBreaker; options: CircuitBreaker.Options };
  routeGuard(origin: Guard, route: string): Guard;
}

/** A route whose calls are failing: since when (`Guard.ok` then), and its own breaker once isolated. */
interface FailingRoute {
  since: number;
  guard: Guard | undefined;
}

/** Failing routes remembered per origin. */
const FAILING_ROUTES_KEPT = 64;

const NO_ARGS: unknown[] = [];

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
