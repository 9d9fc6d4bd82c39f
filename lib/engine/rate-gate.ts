import { AxiosError, AxiosHeaders } from 'axios';
import type { AxiosResponse, AxiosResponseHeaders } from 'axios';
import type { RateLimiter, Throttle } from '../guards/rate-limiter';
import {
  isThrottle,
  mayBeSpent,
  parseRateLimitHeaders,
  policyRate,
  quotaSpent,
  serverWaitMs,
  spentForMs,
} from '../policy/rate-limit-headers';
import type { RateLimitHint } from '../policy/rate-limit-headers';
import type { Attempt, CallRun, Pushback } from './call-run';
import type { GateWait } from './plan';
import type { Shared } from './context';
import { interruptible } from './hooks';
import { interrupted, stop } from './outcome';
import type { Outcome } from './outcome';

/**
 * The gate a call crosses at its key's rate limiter: the engine informs it once after each attempt
 * (`observe`: what the answer said), asks it once when it plans a retry (`gateWait`: how long the
 * gate would hold a send, a wait like any other, with its source), and crosses it once before each
 * send (`takeTurn`). The rule the limiter follows is `guards/rate-rule.ts`; none of it is here. A key
 * that never throttled has no limiter, and a call to it pays one field check (`RateLimiters.engaged`).
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

/** The response an attempt ended in (a resolved one, or the one its error carries). */
export function responseOf(attempt: Attempt | undefined): { status?: unknown; headers?: unknown } | undefined {
  if (attempt === undefined) return undefined;
  if (attempt.response !== undefined) return attempt.response;
  const response = (attempt.error as { response?: { status?: unknown; headers?: unknown } | null } | null)?.response;
  return response ?? undefined;
}

/**
 * Tells the key's limiter what an attempt's answer says. A throttle (`isThrottle`: a 429; a 403 that
 * says the quota is spent or asks for a wait; a 503 or 529 that asks for a wait) engages the
 * limiter, or cuts its rate, and holds the key for the server's wait or the quota's reset; any other
 * answer is a success for its measurement, and its headers pace it: one saying the quota is spent
 * engages the limiter before the first refusal, and may hold the key until the reset. Marks the call
 * `throttled` so its retry waits its turn, not on a token of the budget.
 */
export function observe(run: CallRun, attempt: Attempt): void {
  run.pushback = NO_PUSHBACK;
  const limiters = run.shared.limiters;
  if (limiters === undefined) return;
  const response = responseOf(attempt);
  if (response === undefined) return;
  const status = response.status;
  const existing = limiters.engaged === 0 ? undefined : limiters.get(run.limiterKey);
  // An answer from a key that is not throttled, and no throttle itself: nothing to read.
  if (!MAY_THROTTLE.has(status) && existing?.state !== 'on' && !headersMaySpend(response.headers)) return;
  const now = run.shared.now();
  const read = headerReader(response.headers);
  const waitMs = serverWaitMs(read, now);
  const hint = parseRateLimitHeaders(read, now);
  const rate = policyRate(hint);
  const hold = holdOf(run.options.maxDelayMs, waitMs, hint, rate);
  if (isThrottle(status, waitMs, hint)) {
    run.pushback = { throttled: true, quotaWaitMs: spentForMs(hint) };
    const limiter = existing ?? limiters.for(run.limiterKey);
    const hintless = waitMs === undefined && hint === undefined;
    // The clock the server's wait was read by: a wait until a date then ends at that date.
    limiter.throttled({ sentAt: run.sentAt, policyRate: rate, ...hold, hintless }, now);
  } else if (existing?.state === 'on') {
    existing.succeeded();
    if (quotaSpent(hint)) existing.spentOnSuccess(hold);
    existing.hinted(rate);
  } else if (quotaSpent(hint)) {
    engageAtSpentQuota(limiters.for(run.limiterKey), rate, hold);
  }
}

const NO_PUSHBACK: Pushback = { throttled: false, quotaWaitMs: undefined };

/**
 * What the key's gate would hold a retry sent now to, while its limiter is on (`undefined` when it
 * is off): the key's hold, and the turn in its queue, the hold included.
 */
export function gateWait(run: CallRun, now: number): GateWait | undefined {
  const limiter = activeLimiter(run);
  if (limiter === undefined) return undefined;
  return {
    turnMs: limiter.full ? Infinity : Math.ceil(limiter.expectedWaitMs(now)),
    heldForMs: limiter.heldForMs(now),
  };
}

/**
 * What the server asks the retry of the last attempt to wait, in ms: its `Retry-After` (or
 * `retry-after-ms`), else for a throttle, its spent quota's reset; `undefined` without a valid one.
 */
export function askedWaitMs(run: CallRun, now: number): number | undefined {
  return serverWaitMs(headerReader(responseOf(run.last)?.headers), now) ?? run.pushback.quotaWaitMs;
}

/** How much later than planned a turn may come and still count as the wait chosen (ms). */
const TIMER_SLACK_MS = 100;

/** Statuses that may be a throttle (`isThrottle` decides, from the headers). */
const MAY_THROTTLE = new Set<unknown>([429, 403, 503, 529]);

function headersMaySpend(headers: unknown): boolean {
  return headers !== null && typeof headers === 'object' && mayBeSpent(headers as Record<string, unknown>);
}

/** A success that spent the quota of a key not being paced: the next call would be refused, so the limiter engages now. */
function engageAtSpentQuota(limiter: RateLimiter, rate: number | undefined, hold: Hold): void {
  limiter.throttled({ sentAt: -Infinity, policyRate: rate });
  limiter.spentOnSuccess(hold);
}

/**
 * The fast path's one look at rate limits, on a first attempt's success: where its headers say the
 * quota is spent, the key's limiter engages before the first refusal.
 */
export function noteSuccess(shared: Shared, key: string, maxDelayMs: number, response: AxiosResponse): void {
  const limiters = shared.limiters;
  if (limiters === undefined || !headersMaySpend(response.headers)) return;
  const now = shared.now();
  const hint = parseRateLimitHeaders(headerReader(response.headers), now);
  if (!quotaSpent(hint)) return;
  const rate = policyRate(hint);
  engageAtSpentQuota(limiters.for(key), rate, holdOf(maxDelayMs, undefined, hint, rate));
}

type Hold = Pick<Throttle, 'pauseMs' | 'resetMs'>;

/**
 * How long an answer holds its key:
 * - the server's wait (`Retry-After`, `retry-after-ms`), within `maxDelayMs`: `pauseMs`;
 * - a quota spent for longer than `maxDelayMs`: `pauseMs`, not clamped: the key refuses calls
 *   until then (`heldForMs`), as no call may wait that long;
 * - a quota spent until a reset within `maxDelayMs`: `resetMs`, which holds the key once its resets
 *   proved real (`RateLimiter.confirmedReset`); until then, where the policy states a rate, one
 *   request's share of its window (`pauseMs`; the pace covers the rest).
 */
function holdOf(
  maxDelayMs: number,
  waitMs: number | undefined,
  hint: RateLimitHint | undefined,
  rate: number | undefined,
): Hold {
  if (waitMs !== undefined && waitMs > 0) return { pauseMs: Math.min(waitMs, maxDelayMs) };
  const spentFor = spentForMs(hint);
  if (spentFor === undefined) return {};
  if (spentFor > maxDelayMs) return { pauseMs: spentFor };
  return rate === undefined ? { resetMs: spentFor } : { resetMs: spentFor, pauseMs: Math.min(spentFor, 1000 / rate) };
}

/**
 * The error of a call the limiter turned away before it sent anything: its key's quota is spent
 * until `retryAt` (epoch ms, the plugin's clock), or its queue was full, or its deadline too near.
 */
function rateLimitedError(run: CallRun, retryAt?: number): AxiosError {
  const why =
    retryAt === undefined
      ? 'the call would wait past its deadline or the queue bound'
      : `its quota is spent until ${new Date(retryAt).toISOString()}; nothing was sent`;
  return new AxiosError(`axios-resilience: ${run.limiterKey} is rate-limited: ${why}`, 'ERR_RATE_LIMITED', run.config);
}

/**
 * Waits for the attempt's turn while the key's limiter is on: `undefined` (no promise) when the
 * key is not throttled; else a promise of `undefined` once it may go. A key held longer than
 * `maxDelayMs` (a spent quota) refuses the call at once, with `retryState.retryAt`; a call that would
 * wait past its deadline, or finds the queue full, stops with `rate-limited`; a cancel or `close()`
 * ends the wait. A retry's time in the queue is added to its entry in `delaysMs`.
 */
export function takeTurn(run: CallRun): Promise<Outcome | undefined> | undefined {
  const limiter = activeLimiter(run);
  // Not throttled: no promise, no await, as before the limiter existed.
  return limiter === undefined ? undefined : waitTurn(run, limiter);
}

async function waitTurn(run: CallRun, limiter: RateLimiter): Promise<Outcome | undefined> {
  const { shared, state } = run;
  const heldForMs = limiter.heldForMs();
  if (heldForMs > run.options.maxDelayMs) {
    state.retryAt = shared.now() + heldForMs;
    return stop(run, 'rate-limited', run.failure ?? rateLimitedError(run, state.retryAt));
  }
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
  run.sentAt = shared.now();
  // A retry that waited its turn: its wait is all the time since it was decided.
  // The wait chosen stands unless the turn came later than it by more than a timer's lateness
  // (a busy host fires timers late; whole-ms clocks round): then the wait the call really had.
  const last = state.delaysMs.length - 1;
  const waited = run.sentAt - run.decidedAt;
  if (turn !== 'go' && state.attempts > 0 && waited > state.delaysMs[last]! + TIMER_SLACK_MS)
    state.delaysMs[last] = waited;
  return undefined;
}
