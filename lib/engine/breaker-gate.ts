import type { AxiosResponse } from 'axios';
import { countFailure } from '../guards/breaker';
import type { BreakerRegistry, Guard, GuardedCall, OriginBreaker } from '../guards/breaker';

/** opossum rejects without calling the action while open (and while a half-open probe is out). */
function isRejecting(breaker: OriginBreaker): boolean {
  return !breaker.closed && !breaker.pendingClose;
}

/** The code of one of opossum's own refusals (`EOPENBREAKER`, `ESHUTDOWN`); an AxiosError has neither. */
function opossumCode(error: unknown): unknown {
  return error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
}

/**
 * One call's passage through its breaker. The breaker counts calls, not attempts, so a call goes
 * through it once, however many attempts it makes:
 * - **counted**: the breaker was closed when the call began. The call runs without `fire`, and its
 *   outcome is counted into the breaker once, when it ends (`succeeded` / `failed`);
 * - **fired**: the breaker was open or half-open. The call runs inside `fire`, so opossum decides: it
 *   refuses the call while open, and lets one probe through when half-open (one per fleet when the
 *   state is shared); the probe's retries are part of it.
 */
export class BreakerGate {
  private settled = false;
  /** This call is the breaker's half-open probe: its retries may go out though the breaker is not closed. */
  private probe = false;
  /** A fired call: ends what opossum judges with a failure, when the call moves to another origin first. */
  private leave: ((failure: unknown) => void) | undefined;

  /** `counted`: the call began under a closed breaker before reaching the gate (the short first attempt). */
  constructor(
    private guard: Guard | undefined,
    private readonly registry: BreakerRegistry | undefined,
    private readonly key: string,
    private readonly isDownstreamFailure: (error: unknown) => boolean,
    /**
     * The call's route: an origin's breaker counts a failure there or on the route's own
     * (`Guard.failureTarget`); `undefined` under a `breaker.key` of the caller's (one breaker, no routes).
     */
    private readonly endpoint: (() => string) | undefined,
    private counted = false,
  ) {}

  /**
   * Runs `work` (the call's attempts) through the breaker; `refused` gives the call's outcome when
   * the breaker will not let it out (nothing is sent).
   */
  pass(work: () => Promise<AxiosResponse>, refused: () => Promise<AxiosResponse>): Promise<AxiosResponse> {
    const guard = this.guard;
    if (guard === undefined || this.counted) return work();
    // A key that has never failed has no opossum breaker yet: closed.
    if (guard.closed) {
      this.counted = true;
      return work();
    }
    const breaker = guard.breaker;
    // Half-open with a fleet: one probe for all processes, not one each.
    if (breaker.halfOpen && this.registry!.shared !== undefined) {
      return this.registry!.acquireProbe(this.key).then((mine) =>
        mine ? this.fire(breaker, work, refused) : refused(),
      );
    }
    return this.fire(breaker, work, refused);
  }

  /** The breaker would refuse a retry now (other calls opened it): waiting would only hold the caller. */
  get refusing(): boolean {
    const breaker = this.guard?.existing;
    return breaker !== undefined && !this.probe && isRejecting(breaker);
  }

  /** No breaker, or a closed one: a hedged copy may go out. */
  get closed(): boolean {
    return this.guard?.closed ?? true;
  }

  /**
   * The call arrives from another origin (a hook moved it): it may go on only under a closed
   * breaker, or none, which then counts it like any call that began there.
   */
  enter(): boolean {
    if (!(this.guard?.closed ?? true)) return false;
    this.counted = true;
    return true;
  }

  /**
   * The call moves to another origin: this breaker counts it as ended here, failed with `failure`
   * (the last attempt's), or not at all when no attempt was sent here.
   */
  left(failure: unknown): void {
    const leave = this.leave;
    this.leave = undefined;
    this.probe = false;
    if (leave !== undefined) return leave(failure);
    if (failure === undefined) this.settled = true;
    else this.failed(failure);
  }

  /** The call's answer: counted as a success, once, by a breaker the call did not fire. */
  succeeded(response: AxiosResponse): void {
    if (!this.counted || this.settled || this.guard === undefined) return;
    this.settled = true;
    this.guard.succeeded(response, this.endpoint);
  }

  /** An attempt failed: where its route's failures began, for `failed` (`Guard.failureBegan`). */
  attemptFailed(error: unknown): void {
    const guard = this.guard;
    if (guard === undefined || guard.route || this.endpoint === undefined || !this.isDownstreamFailure(error)) return;
    guard.failureBegan(this.endpoint());
  }

  /**
   * The call's final failure: handed to a breaker the call did not fire, once (opossum judges it).
   * An origin's breaker hands a downstream failure of a route failing while its siblings succeed to
   * that route's own breaker instead.
   */
  failed(error: unknown): void {
    if (!this.counted || this.settled || this.guard === undefined) return;
    this.settled = true;
    const guard = this.guard;
    const scoped = !guard.route && this.endpoint !== undefined && this.isDownstreamFailure(error);
    const target = scoped ? guard.failureTarget(this.endpoint!()) : guard;
    countFailure(target, this.isDownstreamFailure, error);
  }

  /**
   * Runs the call inside opossum's `fire`. opossum judges the promise `run` hands it: the call's
   * outcome, or the failure it left with if a hook moves it elsewhere first. The caller gets the
   * call's own outcome either way.
   */
  private fire(
    breaker: OriginBreaker,
    work: () => Promise<AxiosResponse>,
    refused: () => Promise<AxiosResponse>,
  ): Promise<AxiosResponse> {
    return new Promise<AxiosResponse>((resolve, reject) => {
      let ran = false;
      const call: GuardedCall = {
        run: () => {
          ran = true;
          this.probe = breaker.halfOpen;
          const outcome = work();
          outcome.then(resolve, reject);
          return new Promise<AxiosResponse>((judged, failed) => {
            this.leave = failed;
            outcome.then(judged, failed);
          });
        },
        isDownstreamFailure: this.isDownstreamFailure,
      };
      breaker.fire(call).catch((error: unknown) => {
        // The call ran: the caller has its outcome already.
        if (ran) return;
        const code = opossumCode(error);
        // Open: opossum refused (and counted it in stats.rejects); nothing was sent.
        if (code === 'EOPENBREAKER') return refused().then(resolve, reject);
        // Evicted (past maxOrigins) or the plugin closed: send unguarded.
        if (code === 'ESHUTDOWN') {
          this.guard = undefined;
          return work().then(resolve, reject);
        }
        reject(error);
      });
    });
  }
}
