import type { AxiosResponse } from 'axios';
import { releaseBody } from './body';
import type { ResolvedHedge } from '../policy/options';

/**
 * Hedged requests (Dean and Barroso, "The Tail at Scale"): when an attempt has not answered after
 * a short delay, a copy goes out, the first answer wins and the other copies are aborted. Which
 * calls may be hedged, and whether the guards allow a copy, is the adapter's to say; this module
 * owns the delay and the race.
 */

/** Samples kept per origin; percentiles are recomputed after every `RESORT_EVERY` new samples. */
const SAMPLES = 256;
const RESORT_EVERY = 16;
/** Samples needed before an adaptive delay trusts them. */
const MIN_SAMPLES = 20;

/** Recent latencies of successful attempts to one origin, for an adaptive hedge delay. */
export class LatencyWindow {
  private readonly ring = new Float64Array(SAMPLES);
  private count = 0;
  private sorted: Float64Array | undefined;
  private sinceSort = 0;

  record(ms: number): void {
    this.ring[this.count % SAMPLES] = ms;
    this.count += 1;
    this.sinceSort += 1;
  }

  /** The `p` quantile (0.95 for p95) of the kept samples, or `undefined` while there are too few. */
  quantile(p: number): number | undefined {
    const size = Math.min(this.count, SAMPLES);
    if (size < MIN_SAMPLES) return undefined;
    if (this.sorted === undefined || this.sinceSort >= RESORT_EVERY) {
      this.sorted = this.ring.slice(0, size).sort();
      this.sinceSort = 0;
    }
    return this.sorted[Math.min(size - 1, Math.ceil(p * size) - 1)];
  }
}

/** How long an attempt may go unanswered before a copy is sent. */
export function hedgeDelay(hedge: ResolvedHedge, window: LatencyWindow | undefined): number {
  if (hedge.percentile === undefined) return hedge.delayMs;
  const observed = window?.quantile(hedge.percentile);
  return Math.max(hedge.minDelayMs, Math.ceil(observed ?? hedge.fallbackDelayMs));
}

/** What a race needs from the call it hedges. */
export interface Race {
  /** Sends copy `index` (0: the attempt itself), aborted by `signal` when another copy wins. */
  send(index: number, signal: AbortSignal): Promise<AxiosResponse>;
  /** Whether one more copy may go out now (the guards and a budget token); asked when a delay passes. */
  mayHedge(): boolean | Promise<boolean>;
  delayMs: number;
  maxHedges: number;
  /** The caller's own signal: aborting the call aborts every copy. */
  signal: AbortSignal | undefined;
  /** `plugin.close()` stops further copies. */
  closers: Set<() => void>;
  now: () => number;
}

/** How a race was won. */
export interface RaceWin {
  response: AxiosResponse;
  /** 0: the attempt itself; 1 and up: a hedged copy. */
  winner: number;
  /** How long the winning copy took. */
  latencyMs: number;
}

/**
 * Sends the attempt, and a copy each time `delayMs` passes unanswered (up to `maxHedges`, while
 * `mayHedge` allows). The first response wins: every other copy is aborted at once and a late
 * response's body is released. A failed copy does not end the race while another is in flight;
 * when every copy has failed, the race fails with the last failure and the retry rules take over.
 */
export function race(r: Race): Promise<RaceWin> {
  return new Promise((resolve, reject) => {
    const controllers: AbortController[] = [];
    const launchedAt: number[] = [];
    let inFlight = 0;
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const abortAll = (): void => {
      for (const controller of controllers) controller.abort();
    };
    const stopHedging = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    };
    // plugin.close(): no more copies, and the copies already out are ended; the attempt itself ends
    // as any attempt in flight does.
    const onClose = (): void => {
      stopHedging();
      for (const controller of controllers.slice(1)) controller.abort();
    };
    const finish = (): void => {
      done = true;
      stopHedging();
      r.closers.delete(onClose);
      r.signal?.removeEventListener?.('abort', abortAll);
    };

    const launch = (): void => {
      const index = controllers.length;
      const controller = new AbortController();
      controllers.push(controller);
      launchedAt.push(r.now());
      inFlight += 1;
      let sent: Promise<AxiosResponse>;
      try {
        sent = r.send(index, controller.signal);
      } catch (error) {
        sent = Promise.reject(error);
      }
      sent.then(
        (response) => {
          if (done) return void releaseBody({ response });
          finish();
          controllers.forEach((other, i) => i !== index && other.abort());
          resolve({ response, winner: index, latencyMs: r.now() - launchedAt[index]! });
        },
        (error: unknown) => {
          inFlight -= 1;
          if (done || inFlight > 0) return;
          finish();
          reject(error);
        },
      );
    };

    const hedgeLater = (): void => {
      if (controllers.length > r.maxHedges) return;
      timer = setTimeout(() => {
        timer = undefined;
        void Promise.resolve()
          .then(() => r.mayHedge())
          .then(
            (allowed) => {
              if (!allowed || done) return;
              launch();
              hedgeLater();
            },
            () => undefined,
          );
      }, r.delayMs);
    };

    r.signal?.addEventListener?.('abort', abortAll);
    r.closers.add(onClose);
    launch();
    hedgeLater();
  });
}
