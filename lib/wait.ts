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

/**
 * Waits `ms`, ending early when the call is cancelled (signal or CancelToken) or the plugin is
 * closed. Resolves with how it ended; the timer and every listener are removed either way.
 */
export function wait(
  ms: number,
  config: InternalAxiosRequestConfig,
  closers: Set<() => void>,
): Promise<'elapsed' | WaitEnd> {
  return new Promise((resolve) => {
    const signal = config.signal as AbortSignal | undefined;
    const token = config.cancelToken;
    const finish = (how: 'elapsed' | WaitEnd): void => {
      clearTimeout(timer);
      signal?.removeEventListener?.('abort', onAbort);
      token?.unsubscribe(onAbort);
      closers.delete(onClose);
      resolve(how);
    };
    const onAbort = (): void => finish('aborted');
    const onClose = (): void => finish('closed');
    // Not unref'd: a pending retry is work the caller is waiting for, like an open socket.
    const timer = setTimeout(finish, ms, 'elapsed');
    signal?.addEventListener?.('abort', onAbort);
    token?.subscribe(onAbort);
    closers.add(onClose);
  });
}
