import { AxiosError, CanceledError, isCancel } from 'axios';
import type { InternalAxiosRequestConfig } from 'axios';

/**
 * What may cut a call short — its cancellation (signal or CancelToken), `plugin.close()`, its
 * deadline — and the hooks and waits raced against them. How one ended is a value, never a throw;
 * the loop turns it into the call's outcome.
 */

/**
 * How a wait or a hook ended. `done` carries a hook's resolved value; the others are facts the stop
 * table (`stop.ts`'s `halt`) names a reason for.
 */
export type Ended =
  { how: 'done'; value?: unknown } | { how: 'failed'; error: unknown } | { how: 'cancelled' | 'closed' | 'expired' };

/** What a wait or hook can be ended by besides itself. */
export interface Interrupts {
  config: InternalAxiosRequestConfig;
  /** `closers` end pending waits and hooks when the plugin closes. */
  shared: { closers: Set<() => void> };
}

/** The CanceledError a cancelled call rejects with, or `undefined` when it was not cancelled. */
export function cancellation(config: InternalAxiosRequestConfig): CanceledError<unknown> | undefined {
  const token = config.cancelToken;
  if (token?.reason) return token.reason as unknown as CanceledError<unknown>;
  const signal = config.signal as AbortSignal | undefined;
  if (signal?.aborted) return new CanceledError(undefined, config);
  return undefined;
}

/**
 * Waits for `work` — a number of ms, or a hook's promise — ending early when the call is
 * cancelled, the plugin is closed, or (for a hook) `limitMs` passes. The timer and every listener
 * are removed however it ends; a hook cut short keeps running, but nothing waits for it any more.
 */
export function interruptible(work: number | Promise<unknown>, on: Interrupts, limitMs?: number): Promise<Ended> {
  return new Promise((resolve) => {
    const signal = on.config.signal as AbortSignal | undefined;
    // A signal aborted before a wait ends it now (a CancelToken's `subscribe` calls back at once).
    if (typeof work === 'number' && signal?.aborted === true) return resolve({ how: 'cancelled' });
    const token = on.config.cancelToken;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    const finish = (ended: Ended): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener?.('abort', onAbort);
      token?.unsubscribe(onAbort);
      on.shared.closers.delete(onClose);
      resolve(ended);
    };
    const onAbort = (): void => finish({ how: 'cancelled' });
    const onClose = (): void => finish({ how: 'closed' });
    if (typeof work === 'number') {
      // Not unref'd: a pending retry is work the caller is waiting for, like an open socket.
      timer = setTimeout(finish, work, { how: 'done' });
    } else {
      work.then(
        (value: unknown) => finish({ how: 'done', value }),
        (error: unknown) => finish({ how: 'failed', error }),
      );
      if (limitMs !== undefined) timer = setTimeout(finish, Math.max(0, limitMs), { how: 'expired' });
    }
    signal?.addEventListener?.('abort', onAbort);
    token?.subscribe(onAbort);
    on.shared.closers.add(onClose);
  });
}

/**
 * Runs a user hook (`onRetry`, `beforeAttempt`, `shouldRetry`, a body factory). A hook that
 * returns at once costs no promise; one that returns a promise is raced against cancellation,
 * `close()` and `limitMs` (the time the deadline leaves). A throw or a rejection is `failed`.
 */
export function runHook(hook: () => unknown, on: Interrupts, limitMs?: number): Ended | Promise<Ended> {
  let result: unknown;
  try {
    result = hook();
  } catch (error) {
    return { how: 'failed', error };
  }
  if (typeof (result as PromiseLike<unknown> | undefined)?.then !== 'function') return { how: 'done', value: result };
  return interruptible(Promise.resolve(result), on, limitMs);
}

/**
 * The call's deadline (`deadlineMs`): the one place that knows how much time is left, clips an
 * attempt's timeout to it, and tells a failure the deadline caused from one it did not.
 */
export class Deadline {
  /** The attempt in flight has the time left as its timeout, shorter than axios's own. */
  private clipped = false;

  constructor(
    private readonly deadlineMs: number,
    private readonly startedAt: number,
    private readonly now: () => number,
  ) {}

  /** The time left, in ms. */
  timeLeft(): number {
    return this.deadlineMs - (this.now() - this.startedAt);
  }

  /**
   * The config of the next attempt: its timeout is the smaller of axios's and the time left, so an
   * attempt in flight ends at the deadline. A copy, so the caller's config keeps its own timeout for
   * a re-send. `undefined` when no time is left.
   */
  clip(config: InternalAxiosRequestConfig): InternalAxiosRequestConfig | undefined {
    const left = Math.ceil(this.timeLeft());
    if (left <= 0) return undefined;
    const timeout = config.timeout ?? 0;
    this.clipped = timeout === 0 || left < timeout;
    return this.clipped ? { ...config, timeout: left } : config;
  }

  /** Whether the deadline ended this failed attempt: its timeout was the time left, and it ran out. */
  endedAttempt(error: unknown): boolean {
    if (!this.clipped || isCancel(error)) return false;
    const response = (error as { response?: unknown } | null)?.response;
    return response === undefined || response === null;
  }

  /** The error of a call whose deadline passed before anything failed (it ran out in a hook). */
  error(config: InternalAxiosRequestConfig): AxiosError {
    return new AxiosError(`deadline of ${this.deadlineMs} ms passed`, AxiosError.ETIMEDOUT, config);
  }
}
