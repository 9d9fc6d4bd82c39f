import type { AxiosResponse } from 'axios';
import type { RateLimiter } from '../guards/rate-limiter';
import { RateLimiters } from '../guards/rate-limiters';
import type { ResolvedRateLimit } from '../policy/rate-limit-options';
import type { RateLimitEvent } from '../types';
import { readAnswer, type Answer } from '../policy/answer';
import type { CallRun } from './call-run';
import { NO_PUSHBACK, pushbackOf } from './plan';
import { interruptible } from './hooks';
import type { GateWait, Halt } from './stop';

/**
 * The gate a call crosses at its scope's rate limiter (`guards/rate-limiters.ts` picks the scope): told
 * each answer once (`observe`), asked once per planned retry (`gateWait`: how long it would hold a send,
 * a wait like any other), crossed before each send (`takeTurn`). The rule is `guards/rate-rule.ts`'s,
 * none of it here. A call to an origin where nothing is engaged pays one field check (`engaged`).
 */

/**
 * A server's wait at least this long holds the throttled scope, not only the refused call: a
 * penalty the whole scope serves (GitHub's secondary limits ask for a minute). A shorter one, with
 * no spent quota, is a bucket asking its caller to slow down: the refused call waits it, and the
 * scope is paced, not paused (a pause per refusal of a `Retry-After: 1` storm held every call a second).
 */
const HOLD_WAIT_MS = 5000;

/** How much later than planned a turn may come and still count as the wait chosen (ms). */
const TIMER_SLACK_MS = 100;

/** The plugin's rate limiters, one per scope (made once by `retryPlugin()`); none with `rateLimit: false`. */
export function limitersFor(
  setting: false | ResolvedRateLimit,
  now: () => number,
  onRateLimit: (event: RateLimitEvent) => void,
): RateLimiters | undefined {
  if (setting === false) return undefined;
  return new RateLimiters(now, setting.maxQueue, setting.maxOrigins, onRateLimit, setting.shared);
}

/** The limiter pacing this call's scope now, if one is on. */
export function activeLimiter(run: CallRun): RateLimiter | undefined {
  const limiters = run.shared.limiters;
  if (limiters === undefined || limiters.engaged === 0) return undefined;
  return limiters.active(limiters.keyFor(run));
}

/**
 * Tells the scope's limiter what an attempt's answer says. A throttle (`Answer.throttle`) with a
 * hint engages its scope's limiter, or cuts its rate, and may hold the scope (`holdOf`); a bare one
 * counts as evidence until the scope's bare refusals show the rate is the cause (then it engages),
 * and where the origin's load explains it, its retry is absorbed (`Pushback.absorbed`).
 * An answer naming its quota (GitHub's `X-RateLimit-Resource`) teaches its route's quota, successes too.
 * Any other answer of a paced scope is a success for its measurement, and its headers pace it: a
 * success saying the quota is spent engages the scope's limiter before the first refusal and holds
 * it until the reset. Marks the call `throttled` when its retry waits its turn, needing no budget token.
 */
export function observe(run: CallRun, answer: Answer): void {
  run.pushback = answer.throttle ? pushbackOf(run, answer) : NO_PUSHBACK;
  const limiters = run.shared.limiters;
  if (limiters === undefined) return;
  const sent = run.sending === undefined ? undefined : limiters.landed(run);
  if (answer.status === undefined) return;
  const now = answer.at;
  if (answer.resource !== undefined) limiters.learn(run, answer.resource);
  const paced = run.sentKey === undefined ? undefined : limiters.active(run.sentKey);
  if (!answer.throttle) {
    if (limiters.weighing > 0) limiters.succeeded(run.origin, now, sent);
    if (paced !== undefined) {
      paced.succeeded();
      tellQuota(paced, run, answer);
      if (answer.spent) paced.spentOnSuccess({ pauseMs: holdOf(run, answer, paced) });
      paced.hinted(answer.policyRate);
    } else if (answer.spent) {
      engageAtSpentQuota(run, answer);
    }
    return;
  }
  const key = paced?.key ?? limiters.scopeOf(run, answer, now);
  let limiter = paced ?? limiters.active(key);
  let startRate: number | undefined;
  if (limiter === undefined) {
    if (answer.hintless) {
      const evidence = limiters.refusedBare(run.origin, key, now, sent);
      // Not the rate: the retry waits its own backoff, as a 503's does, or is absorbed where the load explains it.
      run.pushback.absorbed = evidence === 'load' && now - run.startedAt < run.options.maxDelayMs;
      if (evidence === undefined || evidence === 'load') return;
      startRate = evidence.served;
    } else {
      startRate = servedRate(run);
    }
    limiter = limiters.for(key);
  }
  run.pushback.throttled = true;
  tellQuota(limiter, run, answer);
  limiter.throttled(
    {
      sentAt: run.sentAt,
      policyRate: answer.policyRate,
      pauseMs: holdOf(run, answer, limiter),
      hintless: answer.hintless,
      startRate,
    },
    now,
  );
}

/**
 * What an answer of a paced scope says of its quota (`guards/refill-evidence.ts`): whether its limiter refills, and a
 * window's count, size and reset (`X-RateLimit-*`, IETF `RateLimit`; not a dialect's quota that refills), as of its send.
 */
function tellQuota(limiter: RateLimiter, run: CallRun, answer: Answer): void {
  const { remaining, quota: limit, resetMs, replenishes } = answer.hint ?? {};
  const resetAt = resetMs === undefined ? undefined : answer.at + resetMs;
  limiter.heard(
    { ok: !answer.throttle, remaining, limit, resetAt, sentAt: run.sentAt, at: answer.at },
    replenishes !== true,
  );
}

/**
 * How long an answer holds its scope (every call of it), in ms: a spent quota (`remaining: 0`, a
 * success's or a refusal's) until its reset, believed at once, past `maxDelayMs` not clamped (calls
 * are refused until then, with `retryAt`), unless it refills continuously at an unknown size; the
 * server's wait, within `maxDelayMs`, when the quota is spent too or it is `HOLD_WAIT_MS` or longer.
 * `undefined`: no hold (the scope is paced), also for a hold of a second or less asked by a limiter
 * shown to refill continuously (`guards/refill-evidence.ts`: a token bucket's `Retry-After: 1`).
 */
function holdOf(run: CallRun, answer: Answer, limiter: RateLimiter): number | undefined {
  const hold = heldBy(run, answer);
  return hold !== undefined && limiter.pacesInstead(hold) ? undefined : hold;
}

/** The hold an answer asks of its scope, whatever its limiter (see `holdOf`). */
function heldBy(run: CallRun, answer: Answer): number | undefined {
  const { maxDelayMs } = run.options;
  const wait = answer.waitMs;
  if (wait !== undefined && wait > 0 && (answer.spent || wait >= HOLD_WAIT_MS)) return Math.min(wait, maxDelayMs);
  if (!answer.spent) return undefined;
  const hint = answer.hint!;
  if (hint.replenishes === true && hint.quota === undefined) return undefined;
  return answer.spentForMs;
}

/** Successes per second the call's route was served before its throttle (the breaker counts them): where pacing starts. */
function servedRate(run: CallRun): number | undefined {
  return run.shared.breakers?.servedPerSecond(run.route.breakerKey);
}

/** A success that spent the quota of a scope not being paced: the next call would be refused, so its limiter engages now. */
function engageAtSpentQuota(run: CallRun, answer: Answer): void {
  const limiters = run.shared.limiters!;
  const limiter = limiters.for(limiters.scopeOf(run, answer, answer.at));
  if (limiter.state !== 'on') {
    limiter.throttled({ sentAt: -Infinity, policyRate: answer.policyRate, startRate: servedRate(run) }, answer.at);
  }
  limiter.spentOnSuccess({ pauseMs: holdOf(run, answer, limiter) });
}

/**
 * The fast path's one look at rate limits, on a first attempt's success: counted where bare
 * refusals are being weighed; the quota its headers name learned for its route; and where they say
 * the quota is spent, the scope's limiter engages before the first refusal.
 */
export function noteSuccess(run: CallRun, response: AxiosResponse): void {
  const limiters = run.shared.limiters;
  if (limiters === undefined) return;
  const sent = run.sending === undefined ? undefined : limiters.landed(run);
  if (limiters.weighing > 0) limiters.succeeded(run.origin, run.shared.now(), sent);
  const headers = response.headers as Record<string, unknown> | null;
  const dialects = run.shared.dialects;
  if (
    headers === null ||
    typeof headers !== 'object' ||
    (dialects?.mayBeSpent(headers) !== true && headers['x-ratelimit-resource'] === undefined)
  )
    return;
  const answer = readAnswer({ response }, run.shared.now(), dialects);
  if (answer.resource !== undefined) limiters.learn(run, answer.resource);
  if (answer.spent) engageAtSpentQuota(run, answer);
}

/**
 * What the scope's gate would hold a retry sent now to, while its limiter is on (`undefined` when
 * it is off): the scope's hold, and the turn in its queue, the hold included.
 */
export function gateWait(run: CallRun, now: number): GateWait | undefined {
  const limiter = activeLimiter(run);
  if (limiter === undefined) return undefined;
  return {
    turnMs: limiter.full ? Infinity : Math.ceil(limiter.expectedWaitMs(now)),
    heldForMs: limiter.heldForMs(now),
    absorbs: absorbs(run, limiter, now),
  };
}

/**
 * Whether the call's refusal is load its paced scope absorbs, so that its retries are bounded by its
 * deadline, the queue's bound, `close()` and `maxDelayMs` from its start, not by `retries`: it was
 * throttled and waits its turn at the scope's gate, and the scope is being served (a success counted
 * within the last second, or engaged less than a second ago): a server refusing every call of the
 * scope is no load to absorb, and `retries` bounds those. `retries: 0` retries nothing.
 */
function absorbs(run: CallRun, limiter: RateLimiter, now: number): boolean {
  const { retries, maxDelayMs } = run.options;
  return run.pushback.throttled && retries > 0 && now - run.startedAt < maxDelayMs && limiter.serving(now);
}

/**
 * Waits for the attempt's turn while its scope's limiter is on: `undefined` (no promise) when the
 * scope is not paced; else a promise of `undefined` once it may go. A scope held longer than
 * `maxDelayMs` (a spent quota) refuses the call at once, with `retryState.retryAt`; a call that
 * would wait past its deadline, or finds the queue full, stops with `rate-limited`; a cancel or
 * `close()` ends the wait. A retry's time in the queue is added to its entry in `delaysMs`.
 */
export function takeTurn(run: CallRun): Promise<Halt | undefined> | undefined {
  run.sentKey = undefined;
  const limiter = activeLimiter(run);
  // Not paced: no promise, no await, as before the limiter existed.
  return limiter === undefined ? undefined : waitTurn(run, limiter);
}

async function waitTurn(run: CallRun, limiter: RateLimiter): Promise<Halt | undefined> {
  const { shared, state } = run;
  const key = limiter.key;
  const heldForMs = limiter.heldForMs();
  if (heldForMs > run.options.maxDelayMs) return { how: 'rate-held', key, retryAt: shared.now() + heldForMs };
  const timeLeft = run.deadline?.timeLeft();
  if (timeLeft !== undefined && limiter.expectedWaitMs() >= timeLeft) return { how: 'rate-held', key };
  const turn = limiter.acquire();
  if (turn === 'full') return { how: 'rate-held', key };
  if (turn !== 'go') {
    const ended = await interruptible(turn.turn, run, timeLeft);
    if (ended.how !== 'done') {
      turn.cancel();
      // The deadline came while the call waited its turn: it was the queue that held it.
      return ended.how === 'expired' ? { how: 'rate-held', key } : ended;
    }
  }
  // Only a paced attempt needs its send time and scope: a throttle of one sent before the last cut cuts no further.
  run.sentKey = limiter.key;
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
