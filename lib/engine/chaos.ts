import { CanceledError } from 'axios';
import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import type { ResolvedChaos, ResolvedFault } from '../policy/chaos-options';
import { pathOf } from '../policy/scope';
import type { ChaosInjection } from '../types';
import { releaseBody } from './body';
import type { CallState } from './call';
import { adapterKind, networkFailure, statusOutcome, timeoutError } from './chaos-outcome';
import type { AdapterKind } from './chaos-outcome';
import { markInjected, wrapsAdapter } from './chaos-mark';
import type { Shared } from './context';
import { cancellation, interruptible } from './hooks';
import { destination } from './route';

/**
 * Fault injection inside the client (Polly's Simmy, Envoy's fault filter): the call's adapter is
 * wrapped, so every attempt — the first, a retry, a hedged copy — may get a fault, and whatever
 * the fault makes comes back to the engine as the adapter's own outcome would. Nothing above the
 * adapter knows: the decision table, `shouldRetry`, the budget, the breaker, the rate limiter and
 * the hooks see an injected 503 as they see a real one. Only calls with `chaos` get here.
 */

/** The faults chosen for one attempt: at most one latency, and at most one outcome (a status or an error). */
interface Chosen {
  latency: ResolvedFault | undefined;
  outcome: ResolvedFault | undefined;
}

function matches(fault: ResolvedFault, config: InternalAxiosRequestConfig): boolean {
  if (fault.methods !== undefined && !fault.methods.has((config.method ?? 'get').toUpperCase())) return false;
  if (fault.origins !== undefined && !fault.origins.has(destination(config))) return false;
  const want = fault.path;
  if (want === undefined) return true;
  const path = pathOf(config);
  if (typeof want !== 'string') {
    want.lastIndex = 0;
    return want.test(path);
  }
  return path === want || path.startsWith(want.endsWith('/') ? want : `${want}/`);
}

/** Which faults this attempt gets: each matching fault, in order, draws once until its kind is chosen. */
function choose(chaos: ResolvedChaos, config: InternalAxiosRequestConfig): Chosen | undefined {
  let latency: ResolvedFault | undefined;
  let outcome: ResolvedFault | undefined;
  for (const fault of chaos.faults) {
    const isLatency = fault.effect.kind === 'latency';
    if ((isLatency ? latency : outcome) !== undefined || !matches(fault, config)) continue;
    if (!(chaos.draw() < fault.rate)) continue;
    if (isLatency) latency = fault;
    else outcome = fault;
  }
  return latency === undefined && outcome === undefined ? undefined : { latency, outcome };
}

/** The call's adapter wrapped in `chaos`; `retryState.injected` starts at 0. */
export function withChaos(
  base: AxiosAdapter,
  chaos: ResolvedChaos,
  state: CallState,
  shared: Shared,
  attemptHeader: string | false,
): AxiosAdapter {
  state.injected = 0;
  let kind: AdapterKind | undefined;
  const adapter: AxiosAdapter = (config) => {
    const chosen = choose(chaos, config);
    if (chosen === undefined) return base(config);
    kind ??= adapterKind(base, config);
    // An answer that will be dropped is marked on the attempt header, for the span (axios-resilience/otel).
    if (attemptHeader !== false && chosen.outcome?.phase === 'after') {
      const sent = config.headers.get(attemptHeader);
      if (typeof sent === 'string') config.headers.set(attemptHeader, `${sent}; chaos`);
    }
    return new Faulted(base, config, kind, state, shared).run(chosen);
  };
  return wrapsAdapter(adapter, base);
}

/** One attempt with faults. */
class Faulted {
  constructor(
    private readonly base: AxiosAdapter,
    private readonly config: InternalAxiosRequestConfig,
    private readonly kind: AdapterKind,
    private readonly state: CallState,
    private readonly shared: Shared,
  ) {}

  async run({ latency, outcome }: Chosen): Promise<AxiosResponse> {
    const timeout = this.config.timeout ?? 0;
    let config = this.config;
    if (latency?.phase === 'before') {
      const { latencyMs } = latency.effect as { latencyMs: number };
      // A slow network counts against the attempt's timeout: what is left of it goes to the send.
      if (timeout > 0 && latencyMs >= timeout) return this.timedOut(latency, timeout, undefined);
      await this.hold(latencyMs, undefined);
      if (timeout > 0) config = { ...config, timeout: timeout - latencyMs };
    }
    if (outcome?.phase === 'before') return this.inject(outcome, undefined);
    const sentAt = this.shared.now();
    let failure: { error: unknown } | undefined;
    let response: AxiosResponse | undefined;
    try {
      response = await this.base(config);
    } catch (error) {
      failure = { error };
      response = (error as { response?: AxiosResponse | null } | null)?.response ?? undefined;
    }
    // Only an answer can be dropped: a failure without one (a refused connection, a cancel) stays as it is.
    if (response !== undefined) {
      if (latency?.phase === 'after') {
        const { latencyMs } = latency.effect as { latencyMs: number };
        const left = timeout > 0 ? timeout - (this.shared.now() - sentAt) : Infinity;
        if (latencyMs >= left) {
          releaseBody({ response });
          return this.timedOut(latency, Math.max(0, left), response.request);
        }
        await this.hold(latencyMs, response);
      }
      if (outcome?.phase === 'after') {
        releaseBody({ response });
        return this.inject(outcome, response.request);
      }
    }
    if (failure !== undefined) throw failure.error;
    return response!;
  }

  /** Ends the attempt as `fault` says. */
  private async inject(fault: ResolvedFault, request: unknown): Promise<AxiosResponse> {
    const { effect } = fault;
    if (effect.kind !== 'status') {
      const { code } = effect as { code: string };
      throw this.counted(fault, code, networkFailure(code, this.kind, this.config, request));
    }
    const ended = statusOutcome(effect.status, effect.headers, effect.body, this.config, request);
    if ('error' in ended) throw this.counted(fault, effect.status, ended.error);
    return this.counted(fault, effect.status, ended.response);
  }

  /** A latency that reaches the timeout: the adapter's timeout error when the timeout passes. */
  private async timedOut(fault: ResolvedFault, afterMs: number, request: unknown): Promise<never> {
    await this.hold(afterMs, undefined);
    throw this.counted(fault, 'latency', timeoutError(this.kind, this.config, request));
  }

  /** What `fault` made, counted in `retryState.injected` and marked (`injected`). */
  private counted<T extends object>(fault: ResolvedFault, kind: ChaosInjection['kind'], made: T): T {
    this.state.injected = (this.state.injected ?? 0) + 1;
    return markInjected(made, { fault: fault.index, phase: fault.phase, kind });
  }

  /**
   * Waits `ms` (the timer keeps the process alive while the call waits, as a slow socket would);
   * a cancel of the call or `plugin.close()` ends it at once with the adapter's CanceledError.
   */
  private async hold(ms: number, held: AxiosResponse | undefined): Promise<void> {
    const { config } = this;
    // A signal aborted already fires no event: the wait would run its course.
    const ended =
      cancellation(config) === undefined
        ? await interruptible(ms, { config, shared: this.shared })
        : { how: 'cancelled' };
    if (ended.how === 'done') return;
    releaseBody({ response: held });
    throw ended.how === 'cancelled'
      ? (cancellation(config) ?? new CanceledError(undefined, config))
      : new CanceledError('axios-resilience: the plugin was closed', config);
  }
}
