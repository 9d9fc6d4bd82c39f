import { AxiosError, AxiosHeaders } from 'axios';
import type { AxiosResponseHeaders } from 'axios';
import type { RateLimiter } from '../guards/rate-limiter';
import { parseRateLimitHeaders, parseRetryAfterMs, policyRate, quotaSpent } from '../policy/rate-limit-headers';
import type { RateLimitHint } from '../policy/rate-limit-headers';
import { parseRetryAfter } from '../policy/retry-after';
import type { Attempt, CallRun } from './call-run';
import { interruptible } from './hooks';
import { interrupted, stop } from './outcome';
import type { Outcome } from './outcome';

/**
 * One call's dealings with its origin's rate limiter: what each answer tells it (`observe`), and
 * the turn each attempt waits for while it is on (`takeTurn`). An origin that never throttled has
 * no limiter, and a call to it pays one field check (`RateLimiters.engaged`).
 */

/** The limiter pacing this call's origin now, if one is on. */
export function activeLimiter(run: Pick<CallRun, 'shared' | 'limiterKey'>): RateLimiter | undefined {
  return run.shared.limiters?.active(run.limiterKey);
}

/** A response header as text (AxiosHeaders or a custom adapter's plain object; the first of repeats). */
export function headerReader(headers: unknown): (name: string) => string | undefined {
  if (headers === null || typeof headers !== 'object') return () => undefined;
  const all = AxiosHeaders.from(headers as AxiosResponseHeaders);
  return (name) => {
    let value: unknown = all.get(name);
    if (Array.isArray(value)) value = value[0];
    return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
  };
}

/** The server's wait in ms: `retry-after-ms` first (finer), then `Retry-After`. */
export function serverWaitMs(read: (name: string) => string | undefined, nowMs: number): number | undefined {
  return parseRetryAfterMs(read('retry-after-ms')) ?? parseRetryAfter(read('retry-after'), nowMs);
}

/** The response an attempt ended in (a resolved one, or the one its error carries). */
export function responseOf(attempt: Attempt | undefined): { status?: unknown; headers?: unknown } | undefined {
  if (attempt === undefined) return undefined;
  if (attempt.response !== undefined) return attempt.response;
  const response = (attempt.error as { response?: { status?: unknown; headers?: unknown } | null } | null)?.response;
  return response ?? undefined;
}

/**
 * Tells the origin's limiter what an attempt's answer says: a 429, or a 503 with a server wait, or
 * a spent quota is a throttle (it engages the limiter, or cuts its rate); any other answer is a
 * success for its measurement, and its `RateLimit` headers pace it. Marks the call `throttled` so
 * its retry waits in the queue, not on a token of the budget.
 */
export function observe(run: CallRun, attempt: Attempt): void {
  run.throttled = false;
  const limiters = run.shared.limiters;
  if (limiters === undefined) return;
  const response = responseOf(attempt);
  if (response === undefined) return;
  const status = response.status;
  const existing = limiters.engaged === 0 ? undefined : limiters.get(run.limiterKey);
  // An answer from an origin that is not throttled, and no throttle itself: nothing to read.
  if (status !== 429 && status !== 503 && existing?.state !== 'on') return;
  const now = run.shared.now();
  const read = headerReader(response.headers);
  const waitMs = serverWaitMs(read, now);
  const hint = parseRateLimitHeaders(read, now);
  const refused = status === 429 || (status === 503 && waitMs !== undefined && waitMs > 0);
  const rate = policyRate(hint);
  if (!refused) {
    // A success that spent the quota: the next call would be refused. With the policy's rate known
    // the limiter paces to it already; without, it is a throttle that cuts, but pauses nothing (a
    // reset rounded to whole seconds would hold the origin longer than the server does).
    if (existing?.state !== 'on') return;
    if (quotaSpent(hint) && rate === undefined) {
      existing.throttled({ sentAt: run.sentAt });
      if (attempt.response !== undefined) existing.succeeded();
    } else {
      existing.succeeded();
      existing.hinted(rate, undefined);
    }
    return;
  }
  run.throttled = true;
  const limiter = existing ?? limiters.for(run.limiterKey);
  limiter.throttled({ sentAt: run.sentAt, pauseMs: pauseOf(run, waitMs, hint), policyRate: rate });
}

/** How long a throttle holds the origin: the server's wait, or a spent quota's reset, within `maxDelayMs`. */
function pauseOf(run: CallRun, waitMs: number | undefined, hint: RateLimitHint | undefined): number | undefined {
  let asked = waitMs !== undefined && waitMs > 0 ? waitMs : undefined;
  if (asked === undefined && quotaSpent(hint)) {
    // A policy's rate paces the origin already: a spent quota then holds it for one request's share
    // of the window, not to a reset rounded up to whole seconds.
    const rate = policyRate(hint);
    asked = rate === undefined ? hint?.resetMs : Math.min(hint?.resetMs ?? Infinity, 1000 / rate);
  }
  return asked === undefined ? undefined : Math.min(asked, run.options.maxDelayMs);
}

/** The error of a call the limiter turned away before it sent anything (its queue was full, or its deadline too near). */
function rateLimitedError(run: CallRun): AxiosError {
  return new AxiosError(
    `axios-resilience: ${run.limiterKey} is rate-limited and the call would wait past its deadline or the queue bound`,
    'ERR_RATE_LIMITED',
    run.config,
  );
}

/**
 * Waits for the attempt's turn while the origin's limiter is on: `undefined` (no promise) when the
 * origin is not throttled; else a promise of `undefined` once it may go. A call that would wait past its
 * deadline, or finds the queue full, stops with `rate-limited`; a cancel or `close()` ends the wait.
 */
export function takeTurn(run: CallRun): Promise<Outcome | undefined> | undefined {
  const limiter = activeLimiter(run);
  // Not throttled: no promise, no await, as before the limiter existed.
  return limiter === undefined ? undefined : waitTurn(run, limiter);
}

async function waitTurn(run: CallRun, limiter: RateLimiter): Promise<Outcome | undefined> {
  const timeLeft = run.deadline.timeLeft();
  if (timeLeft !== undefined && limiter.expectedWaitMs() >= timeLeft) {
    return stop(run, 'rate-limited', run.failure ?? rateLimitedError(run));
  }
  const turn = limiter.acquire();
  if (turn === 'full') return stop(run, 'rate-limited', run.failure ?? rateLimitedError(run));
  if (turn !== 'go') {
    const ended = await interruptible(turn.turn, run, timeLeft);
    if (ended.how !== 'done') {
      turn.cancel();
      if (ended.how === 'deadline') return stop(run, 'rate-limited', run.failure ?? rateLimitedError(run));
      return interrupted(run, ended, () => rateLimitedError(run));
    }
  }
  // Only a paced attempt needs its send time: a throttle of one sent before the last cut cuts no further.
  run.sentAt = run.shared.now();
  return undefined;
}
