import { AxiosError, AxiosHeaders } from 'axios';
import type { AxiosResponse, AxiosResponseHeaders } from 'axios';
import type { RateLimiter } from '../guards/rate-limiter';
import type { RateLimiters } from '../guards/rate-limiters';
import { parseRateLimitHeaders, parseRetryAfterMs, policyRate, quotaSpent } from '../policy/rate-limit-headers';
import type { RateLimitHint } from '../policy/rate-limit-headers';
import { parseRetryAfter } from '../policy/retry-after';
import type { Attempt, CallRun } from './call-run';
import type { Shared } from './context';
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
 * Whether an answer's headers may say the quota is spent (`RateLimit`, `RateLimit-Remaining` or
 * `X-RateLimit-Remaining` present): read on every success, so three property reads where none is
 * there. Adapters hand headers over in lower case; one in another case is read at the next 429.
 */
export function mayBeSpent(headers: unknown): boolean {
  if (headers === null || typeof headers !== 'object') return false;
  const h = headers as Record<string, unknown>;
  return (
    h['ratelimit'] !== undefined || h['x-ratelimit-remaining'] !== undefined || h['ratelimit-remaining'] !== undefined
  );
}

/**
 * Tells the origin's limiter what an attempt's answer says: a 429, or a 503 with a server wait, is
 * a throttle (it engages the limiter, or cuts its rate), and so is a success that spent the quota
 * while the limiter is off (it engages before the first 429); any other answer is a success for its
 * measurement, and its `RateLimit` headers pace it. Marks the call `throttled` so its retry waits in
 * the queue, not on a token of the budget.
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
  if (status !== 429 && status !== 503 && existing?.state !== 'on' && !mayBeSpent(response.headers)) return;
  const now = run.shared.now();
  const read = headerReader(response.headers);
  const waitMs = serverWaitMs(read, now);
  const hint = parseRateLimitHeaders(read, now);
  const refused = status === 429 || (status === 503 && waitMs !== undefined && waitMs > 0);
  const rate = policyRate(hint);
  if (refused) {
    run.throttled = true;
    const limiter = existing ?? limiters.for(run.limiterKey);
    limiter.throttled({ sentAt: run.sentAt, policyRate: rate, ...holdOf(run.options.maxDelayMs, waitMs, hint, rate) });
  } else if (existing?.state === 'on') {
    existing.succeeded();
    // A success that spent the quota without a stated rate: the pace is at the server's limit.
    if (quotaSpent(hint) && rate === undefined) existing.atLimit();
    else existing.hinted(rate);
  } else if (quotaSpent(hint)) {
    engageAtSpentQuota(limiters, run.limiterKey, hint, rate, run.options.maxDelayMs);
  }
}

/** A success that spent the quota of an origin not being paced: the next call would be refused, so the limiter engages now. */
function engageAtSpentQuota(
  limiters: RateLimiters,
  key: string,
  hint: RateLimitHint | undefined,
  rate: number | undefined,
  maxDelayMs: number,
): void {
  limiters.for(key).throttled({ sentAt: -Infinity, policyRate: rate, ...holdOf(maxDelayMs, undefined, hint, rate) });
}

/**
 * The fast path's one look at rate limits, on a first attempt's success: where its headers say the
 * quota is spent, the origin's limiter engages before the first 429.
 */
export function noteSuccess(shared: Shared, key: string, maxDelayMs: number, response: AxiosResponse): void {
  const limiters = shared.limiters;
  if (limiters === undefined || !mayBeSpent(response.headers)) return;
  const hint = parseRateLimitHeaders(headerReader(response.headers), shared.now());
  if (quotaSpent(hint)) engageAtSpentQuota(limiters, key, hint, policyRate(hint), maxDelayMs);
}

/**
 * How long a throttle holds the origin, within `maxDelayMs`: the server's wait (`pauseMs`); else,
 * for a spent quota, one request's share of the policy's window when its rate is known (the pace
 * covers the rest, where a reset rounded up to whole seconds would hold the origin too long), or
 * its reset (`resetMs`, which the limiter trusts once confirmed).
 */
function holdOf(
  maxDelayMs: number,
  waitMs: number | undefined,
  hint: RateLimitHint | undefined,
  rate: number | undefined,
): { pauseMs?: number; resetMs?: number } {
  const clamp = (ms: number): number => Math.min(ms, maxDelayMs);
  if (waitMs !== undefined && waitMs > 0) return { pauseMs: clamp(waitMs) };
  if (!quotaSpent(hint) || hint?.resetMs === undefined) return {};
  return rate === undefined
    ? { resetMs: clamp(hint.resetMs) }
    : { pauseMs: clamp(Math.min(hint.resetMs, 1000 / rate)) };
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
