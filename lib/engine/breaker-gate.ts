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

  /** `counted`: the call began under a closed breaker before reaching the gate (the short first attempt). */
  constructor(
    private guard: Guard | undefined,
    private readonly registry: BreakerRegistry | undefined,
    private readonly key: string,
    private readonly isDownstreamFailure: (error: unknown) => boolean,
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

  /** The call's answer: counted as a success, once, by a breaker the call did not fire. */
  succeeded(response: AxiosResponse): void {
    if (!this.counted || this.settled || this.guard === undefined) return;
    this.settled = true;
    this.guard.succeed(response);
  }

  /** The call's final failure: handed to a breaker the call did not fire, once (opossum judges it). */
  failed(error: unknown): void {
    if (!this.counted || this.settled || this.guard === undefined) return;
    this.settled = true;
    countFailure(this.guard, this.isDownstreamFailure, error);
  }

  private fire(
    breaker: OriginBreaker,
    work: () => Promise<AxiosResponse>,
    refused: () => Promise<AxiosResponse>,
  ): Promise<AxiosResponse> {
    const call: GuardedCall = {
      run: () => {
        this.probe = breaker.halfOpen;
        return work();
      },
      isDownstreamFailure: this.isDownstreamFailure,
    };
    return breaker.fire(call).then(undefined, (error: unknown) => {
      const code = opossumCode(error);
      // Open: opossum refused (and counted it in stats.rejects); nothing was sent.
      if (code === 'EOPENBREAKER') return refused();
      // Evicted (past maxOrigins) or the plugin closed: send unguarded.
      if (code === 'ESHUTDOWN') {
        this.guard = undefined;
        return work();
      }
      throw error;
    });
  }
}
