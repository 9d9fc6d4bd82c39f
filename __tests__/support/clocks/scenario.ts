/**
 * The fake-clock scenarios, shared by the jest, sinon and vitest runs (`deadline-and-abort/fake-clocks`).
 * Each takes a plugin made before or after the fake timers were installed, and a way to move the
 * fake clock on; the outcome must not depend on which. No sockets: an adapter that answers 503.
 */
import axios, { AxiosError } from 'axios';
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import type { RetryPlugin } from '../../../lib';

/** Options of the plugin each scenario needs. */
export const DEADLINE_OPTIONS = { deadlineMs: 5_000, random: () => 0.999, budget: false, breaker: false } as const;
export const BUDGET_OPTIONS = {
  random: () => 0,
  budget: { ratio: 0, minPerSecond: 0.1, windowMs: 10_000 },
  breaker: false,
} as const;

/** Answers 503 to the first `failures` attempts of each call, then 200. */
function adapter(failures: number) {
  return (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
    const response: AxiosResponse = { status: 200, statusText: 'OK', headers: {}, config, data: 'ok' };
    if ((config.retryState?.attempts ?? 1) > failures) return Promise.resolve(response);
    return Promise.reject(
      new AxiosError('unavailable', 'ERR_BAD_RESPONSE', config, {}, { ...response, status: 503, statusText: '' }),
    );
  };
}

export interface Outcome {
  attempts: number;
  stopReason: string | undefined;
  delaysMs: number[];
  fakeMs: number;
}

/**
 * A GET that always gets 503, with `deadlineMs: 5000` and waits of 499, 999, 1998, 3996 ms: the
 * fourth wait would end past the deadline, so the call stops after 4 attempts and 3.5 s of fake
 * time. With a clock captured before the fakes, it never sees the deadline: 6 attempts, 15.5 s.
 */
export async function deadline(
  plugin: RetryPlugin,
  now: () => number,
  nextTimer: () => Promise<void>,
): Promise<Outcome> {
  const http = axios.create({ adapter: adapter(Infinity) });
  plugin.install(http);
  const started = now();
  let settled = false;
  const call = http.get('http://api.test/r').then(
    () => new Error('the call succeeded'),
    (e: unknown) => e,
  );
  void call.finally(() => (settled = true));
  for (let i = 0; i < 20 && !settled; i++) await nextTimer();
  const error = (await call) as AxiosError;
  const state = error.config!.retryState!;
  return { attempts: state.attempts, stopReason: state.stopReason, delaysMs: state.delaysMs, fakeMs: now() - started };
}

/**
 * A budget of one retry per 10 s window (ratio 0, floor 0.1/s), and calls that fail once: the
 * first call's retry takes the token, the second call is refused; after 10 s of fake time the
 * window has passed and the third call's retry is granted. With a clock captured before the
 * fakes, the window never passes and the third call is refused too.
 */
export async function budget(
  plugin: RetryPlugin,
  nextTimer: () => Promise<void>,
  advance: (ms: number) => Promise<void>,
): Promise<Array<string | undefined>> {
  const http = axios.create({ adapter: adapter(1) });
  plugin.install(http);
  const reasons: Array<string | undefined> = [];
  for (let call = 0; call < 3; call++) {
    let settled = false;
    const pending = http.get('http://api.test/r').then(
      (response) => response.config.retryState?.stopReason ?? 'succeeded',
      (error: AxiosError) => error.config?.retryState?.stopReason,
    );
    void pending.finally(() => (settled = true));
    for (let i = 0; i < 20 && !settled; i++) await nextTimer();
    reasons.push(await pending);
    if (call === 1) await advance(10_000);
  }
  return reasons;
}

/** What both scenarios must give, whichever was made first, the plugin or the fake timers. */
export const EXPECTED = {
  deadline: { attempts: 4, stopReason: 'deadline', delaysMs: [499, 999, 1998], fakeMs: 3496 },
  budget: ['succeeded', 'budget-exhausted', 'succeeded'],
};
