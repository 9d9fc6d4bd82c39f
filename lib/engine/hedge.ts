import { AxiosHeaders } from 'axios';
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { isStream, safeToRepeat } from '../policy/classify';
import type { ResolvedHedge } from '../policy/options';
import { releaseBody } from './body';
import type { CallRun } from './call-run';
import type { Shared } from './context';
import { cancellation } from './hooks';
import { LatencyWindow } from '../guards/latency';
import { BoundedMap } from '../guards/origins';
import { notify } from './listeners';

/**
 * Hedged requests (Dean and Barroso, "The Tail at Scale"): when an attempt has not answered after
 * a short delay, a copy goes out, the first answer wins and the other copies are aborted. This
 * module owns all of it: which calls may be hedged, the delay, whether the guards allow a copy,
 * each copy's config, and the race.
 */

/** Origins whose hedge latencies are kept per plugin (the least recently used is dropped past it). */
const LATENCY_ORIGINS = 1000;

/**
 * Each plugin's recent attempt latencies per origin, for adaptive hedge delays: hedging's own
 * state, kept here (by the plugin's `Shared`, and gone with it) so a build without hedging carries none of it.
 */
const latencies = new WeakMap<Shared, BoundedMap<LatencyWindow>>();
const makeWindow = (): LatencyWindow => new LatencyWindow();

function latencyFor(shared: Shared, origin: string): LatencyWindow {
  let windows = latencies.get(shared);
  if (windows === undefined) latencies.set(shared, (windows = new BoundedMap<LatencyWindow>(LATENCY_ORIGINS)));
  return windows.getOrCreate(origin, makeWindow);
}

/** How long an attempt may go unanswered before a copy is sent. */
export function hedgeDelay(hedge: ResolvedHedge, window: LatencyWindow | undefined): number {
  if (hedge.percentile === undefined) return hedge.delayMs;
  const observed = window?.quantile(hedge.percentile);
  return Math.max(hedge.minDelayMs, Math.ceil(observed ?? hedge.fallbackDelayMs));
}

/** Safe to send twice: an idempotent method or a write whose key is deduped, and a body that can be sent again. */
export function hedgeable(run: CallRun): boolean {
  return safeToRepeat(run.method, run.call.deduped) && !isStream(run.config.data);
}

/**
 * Sends the attempt, and a copy each time the hedge delay passes unanswered (up to `maxHedges`,
 * while `mayHedge` allows). The first response wins: every other copy is aborted at once and a late
 * response's body is released. A failed copy does not end the race while another is in flight;
 * when every copy has failed, the race fails with the last failure and the retry rules take over.
 */
export function hedgedSend(
  run: CallRun,
  hedge: ResolvedHedge,
  attemptConfig: InternalAxiosRequestConfig,
): Promise<AxiosResponse> {
  return new Promise((resolve, reject) => new Racing(run, hedge, attemptConfig, resolve, reject).start());
}

/** One race in progress: its copies, the timer for the next copy, and how it ends. */
class Racing {
  private readonly controllers: AbortController[] = [];
  private readonly launchedAt: number[] = [];
  private inFlight = 0;
  private done = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly window: LatencyWindow | undefined;
  private readonly delayMs: number;
  /** The caller's own signal: aborting the call aborts every copy. */
  private readonly signal: AbortSignal | undefined;

  constructor(
    private readonly run: CallRun,
    private readonly hedge: ResolvedHedge,
    private readonly attemptConfig: InternalAxiosRequestConfig,
    private readonly resolve: (response: AxiosResponse) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.window = hedge.percentile === undefined ? undefined : latencyFor(run.shared, run.origin);
    this.delayMs = hedgeDelay(hedge, this.window);
    this.signal = run.config.signal as AbortSignal | undefined;
  }

  start(): void {
    this.signal?.addEventListener?.('abort', this.abortAll);
    this.run.shared.closers.add(this.onClose);
    this.launch();
    this.hedgeLater();
  }

  private readonly abortAll = (): void => {
    for (const controller of this.controllers) controller.abort();
  };

  /** plugin.close(): no more copies, and the copies already out are ended; the attempt itself ends as any does. */
  private readonly onClose = (): void => {
    this.stopHedging();
    for (const controller of this.controllers.slice(1)) controller.abort();
  };

  private stopHedging(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private finish(): void {
    this.done = true;
    this.stopHedging();
    this.run.shared.closers.delete(this.onClose);
    this.signal?.removeEventListener?.('abort', this.abortAll);
  }

  private launch(): void {
    const index = this.controllers.length;
    const controller = new AbortController();
    this.controllers.push(controller);
    this.launchedAt.push(this.run.shared.now());
    this.inFlight += 1;
    let sent: Promise<AxiosResponse>;
    try {
      sent = this.send(index, controller.signal);
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (response) => this.won(index, response),
      (error: unknown) => this.lost(error),
    );
  }

  /**
   * Sends copy `index` (0: the attempt itself) over the caller's adapter (counted once for the race,
   * in `pipeline.ts`), with its own headers (its attempt number) and abort signal; a later copy's
   * timeout is what the deadline leaves when it starts.
   */
  private send(index: number, signal: AbortSignal): Promise<AxiosResponse> {
    const { run } = this;
    const { config } = run;
    const deadline = index > 0 ? run.deadline : undefined;
    const copy = deadline === undefined ? this.attemptConfig : deadline.clip(config);
    if (copy === undefined) return Promise.reject(deadline!.error(config));
    const headers = AxiosHeaders.from(config.headers);
    const sent: InternalAxiosRequestConfig = { ...copy, headers, signal };
    if (index > 0) {
      const { attemptHeader } = run.options;
      // A copy says so, for servers and for the OpenTelemetry hook (axios-resilience/otel).
      if (attemptHeader !== false) headers.set(attemptHeader, `${run.state.attempts}; hedge`);
      // A browser holds a second request for the same URL until the first's response is in its
      // HTTP cache (the cache lock), which would make every copy as slow as the attempt it hedges.
      if (run.shared.cors.page !== undefined) {
        headers.set('Cache-Control', 'no-cache');
        sent.fetchOptions = { ...copy.fetchOptions, cache: 'no-store' };
      }
    }
    // A custom adapter may hand back a thenable.
    return Promise.resolve(run.base(sent));
  }

  /** The first response wins: every other copy is aborted; a late response's body is released. */
  private won(index: number, response: AxiosResponse): void {
    if (this.done) return void releaseBody({ response });
    this.finish();
    this.controllers.forEach((other, i) => i !== index && other.abort());
    this.window?.record(this.run.shared.now() - this.launchedAt[index]!);
    if (index > 0) this.run.state.hedgeWon = true;
    this.resolve(response);
  }

  /** A failed copy ends the race only when no other copy is still out. */
  private lost(error: unknown): void {
    this.inFlight -= 1;
    if (this.done || this.inFlight > 0) return;
    this.finish();
    this.reject(error);
  }

  private hedgeLater(): void {
    if (this.controllers.length > this.hedge.maxHedges) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void Promise.resolve()
        .then(() => this.mayHedge())
        .then(
          (allowed) => {
            if (!allowed || this.done) return;
            this.launch();
            this.hedgeLater();
          },
          () => undefined,
        );
    }, this.delayMs);
  }

  /** Whether one more copy may go out now: the plugin open, the call live, the breaker closed, a budget token granted. */
  private async mayHedge(): Promise<boolean> {
    const { run } = this;
    const { config, state } = run;
    if (run.shared.closed || cancellation(config) !== undefined || !run.gate.closed) return false;
    const budget = run.route.budget;
    if (budget !== undefined && !(await budget.tryWithdraw())) return false;
    state.attempts += 1;
    state.hedges = (state.hedges ?? 0) + 1;
    // An observer: what it throws does not stop the copy.
    notify(run.options.onHedge, { attempt: state.attempts, delayMs: this.delayMs, config });
    return true;
  }
}
