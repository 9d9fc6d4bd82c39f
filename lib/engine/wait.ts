import { CanceledError } from 'axios';
import type { InternalAxiosRequestConfig } from 'axios';

/** What a pending wait can be ended by besides its timer. */
export type WaitEnd = 'aborted' | 'closed';

/** The CanceledError a cancelled call rejects with, or `undefined` when it was not cancelled. */
export function cancellation(config: InternalAxiosRequestConfig): CanceledError<unknown> | undefined {
  const token = config.cancelToken;
  if (token?.reason) return token.reason as unknown as CanceledError<unknown>;
  const signal = config.signal as AbortSignal | undefined;
  if (signal?.aborted) return new CanceledError(undefined, config);
  return undefined;
}

/** How a wait or a hook ended: in time, failed (the hook threw), or cut short. */
export type Ended = { how: 'done' } | { how: 'failed'; error: unknown } | { how: WaitEnd | 'deadline' };

/**
 * Waits for `work` — a number of ms, or a hook's promise — ending early when the call is cancelled
 * (signal or CancelToken), the plugin is closed, or (for a hook) `limitMs` passes. The timer and every listener are removed
 * however it ends; a hook cut short keeps running, but nothing waits for it any more.
 */
export function interruptible(
  work: number | Promise<unknown>,
  config: InternalAxiosRequestConfig,
  closers: Set<() => void>,
  limitMs?: number,
): Promise<Ended> {
  return new Promise((resolve) => {
    const signal = config.signal as AbortSignal | undefined;
    const token = config.cancelToken;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    const finish = (ended: Ended): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener?.('abort', onAbort);
      token?.unsubscribe(onAbort);
      closers.delete(onClose);
      resolve(ended);
    };
    const onAbort = (): void => finish({ how: 'aborted' });
    const onClose = (): void => finish({ how: 'closed' });
    if (typeof work === 'number') {
      // Not unref'd: a pending retry is work the caller is waiting for, like an open socket.
      timer = setTimeout(finish, work, { how: 'done' });
    } else {
      work.then(
        () => finish({ how: 'done' }),
        (error: unknown) => finish({ how: 'failed', error }),
      );
      if (limitMs !== undefined) timer = setTimeout(finish, Math.max(0, limitMs), { how: 'deadline' });
    }
    signal?.addEventListener?.('abort', onAbort);
    token?.subscribe(onAbort);
    closers.add(onClose);
  });
}
