import type { Answer } from '../policy/answer';
import type { CallRun } from './call-run';

/**
 * What the server asks of the refused call itself, limiter or none (a browser build has none by
 * default): its `Retry-After`, read by the plan from the answer, and a throttle's spent quota.
 */

/** An answer's pushback before any limiter weighs it: not yet paced, and the quota's own wait. */
export function pushbackOf(run: CallRun, answer: Answer): Pushback {
  return { throttled: false, quotaWaitMs: answer.throttle ? ownQuotaWait(answer, run) : undefined };
}

/**
 * What the server asks the refused call itself to wait, in ms, besides a `Retry-After` (which the
 * plan reads from the answer): its spent quota's reset. A dialect that refills continuously (OpenAI's,
 * Anthropic's) says when the whole quota is back: with the quota known, one request's share of that;
 * without it, the reset when it is within `maxDelayMs` (a `1s` reset waits a second), else nothing
 * (the backoff: such a quota frees requests long before it is whole again, so no call fails on it).
 */
function ownQuotaWait(answer: Answer, run: CallRun): number | undefined {
  const spentFor = answer.spentForMs;
  if (spentFor === undefined) return undefined;
  const hint = answer.hint!;
  if (hint.replenishes === true && hint.quota === undefined && spentFor > run.options.maxDelayMs) return undefined;
  return spentFor;
}

/**
 * What the server asks the retry of the last attempt to wait, in ms: its `Retry-After` (or
 * `retry-after-ms`), else for a throttle, its spent quota's reset; `undefined` without a valid one.
 */
export function askedWaitMs(run: CallRun): number | undefined {
  return run.answer?.waitMs ?? run.pushback.quotaWaitMs;
}

/** What an answer said of its key's rate limit (`rate-gate.ts`'s `observe`). */
export interface Pushback {
  /** A throttle (`isThrottle`): the retry waits its turn at the key's limiter, needing no budget token. */
  throttled: boolean;
  /** A throttle whose quota is spent: when the quota frees a request (ms from then). */
  quotaWaitMs: number | undefined;
}
