import type { Answer } from '../policy/answer';
import { computeBackoff } from '../policy/backoff';
import type { ResolvedOptions } from '../policy/options';
import { checkDelay } from '../policy/misuse';
import { refuseRetry, refuseWait } from './stop';
import type { Refusal, RetryFacts } from './stop';

/**
 * The plan: after a failed attempt the table has judged, whether the call is retried, and after
 * how long. The stop table's rows (`stop.ts`) that need no wait come first, then the wait is
 * chosen (the server's, the backoff, the caller's `delay`, the key's gate), then the rows that
 * judge that wait. Pure: facts and options in, a step out.
 *
 * The retry budget is the one guard with an effect (it takes a token), so it is not here: it runs
 * after the plan allows a retry (`RetryToken`, `guards/local-budget.ts`), and a retry refused here never spends a token.
 */

export type PlanOptions = Pick<
  ResolvedOptions,
  'retries' | 'baseDelayMs' | 'maxDelayMs' | 'jitter' | 'retryAfter' | 'random'
>;

/** Where a wait came from. */
export type DelaySource = 'backoff' | 'retry-after' | 'rate-limit' | 'delay';

/** Retry after this wait. */
export interface Wait {
  /** The whole wait expected before the retry is sent: its own wait, or its turn at the key's gate if longer. */
  delayMs: number;
  source: DelaySource;
  /** What the call sleeps before it goes to the gate: its own wait, or nothing when its turn there is the longer. */
  timerMs: number;
  /** The backoff computed for this retry, when the call's own wait is one (decorrelated jitter grows from it). */
  backoffMs?: number;
}

/** The plan's answer: stop (a row refused), the caller's `delay` threw or answered nonsense, or wait and retry. */
export type Step = Refusal | { threw: unknown } | Wait;

/**
 * The caller's `delay` over the computed wait: its answer, within `maxDelayMs`, unless the server
 * asked for longer (its wait wins). A throw, or an answer that is not a number of ms, fails the
 * call as a throwing hook does.
 */
function customWait(own: Wait, facts: RetryFacts, options: PlanOptions): Wait | { threw: unknown } {
  const asked = facts.retryAfterMs !== undefined && facts.retryAfterMs > 0 ? own.delayMs : undefined;
  let chosen: unknown;
  try {
    chosen = facts.delay!(own.delayMs, asked);
    checkDelay(chosen);
  } catch (threw) {
    return { threw };
  }
  if (chosen === undefined) return own;
  const mine = Math.min(chosen, options.maxDelayMs);
  if (asked !== undefined && asked >= mine) return own;
  return { ...own, delayMs: mine, source: 'delay', timerMs: mine };
}

/** Retry after a wait, or stop with a reason. */
export function plan(facts: RetryFacts, options: PlanOptions): Step {
  const refused = refuseRetry(facts, options);
  if (refused !== undefined) return refused;
  // The call's own wait: the server's `Retry-After` beats our guess, within the cap (with
  // `retryAfter: 'fail'`, the table stopped a longer one already). `0` or a past date means "no
  // advice", and then the jittered backoff still spreads the callers out; a throttle with no advice
  // waits that backoff too, as a 503 would. Past `retries` only a paced scope's refusal is retried
  // (`GateWait.absorbs`): its turn at the gate is its wait, the scope's pace, not a backoff grown
  // past the last retry's, protects the server.
  const asked = facts.retryAfterMs;
  let own: Wait;
  if (asked !== undefined && asked > 0) {
    const serverWait = Math.min(asked, options.maxDelayMs);
    own = { delayMs: serverWait, source: 'retry-after', timerMs: serverWait };
  } else if (facts.retry >= options.retries) {
    own = { delayMs: 0, source: 'backoff', timerMs: 0 };
  } else {
    const { baseDelayMs, maxDelayMs } = options;
    const input = { retry: facts.retry, baseDelayMs, maxDelayMs, previousDelayMs: facts.previousDelayMs };
    const backoff = computeBackoff(options.jitter, input, options.random);
    own = { delayMs: backoff, source: 'backoff', timerMs: backoff, backoffMs: backoff };
  }
  const chosen = facts.delay === undefined ? own : customWait(own, facts, options);
  if (!('delayMs' in chosen)) return chosen;
  // The whole wait is the longer of the call's own wait and its turn at the key's gate. The call
  // sleeps its own wait only when that is the longer, and then takes its turn; else it goes to the
  // gate at once and waits there, in its place in the queue (a server's pause of the key is in that
  // turn, so it is never waited twice).
  const gate = facts.gate;
  const wait: Wait =
    gate === undefined || gate.turnMs < chosen.delayMs
      ? chosen
      : {
          ...chosen,
          delayMs: gate.turnMs,
          source: gate.turnMs > chosen.delayMs ? 'rate-limit' : chosen.source,
          timerMs: 0,
        };
  return refuseWait(facts, wait) ?? wait;
}

/**
 * What an answer's server asks of the refused call itself, limiter or none (a browser build has none
 * by default), before any limiter weighs it (`rate-gate.ts`'s `observe`): not yet paced, and besides
 * a `Retry-After` (which the plan reads from the answer), its spent quota's reset. A dialect that
 * refills continuously (OpenAI's, Anthropic's) says when the whole quota is back: with the quota
 * known, one request's share of that; without it, the reset when it is within `maxDelayMs` (a `1s`
 * reset waits a second), else nothing (the backoff: such a quota frees requests long before it is
 * whole again, so no call fails on it).
 */
export function pushbackOf(run: { options: Pick<ResolvedOptions, 'maxDelayMs'> }, answer: Answer): Pushback {
  const spentFor = answer.throttle ? answer.spentForMs : undefined;
  const refillsUnsized =
    spentFor !== undefined && answer.hint!.replenishes === true && answer.hint!.quota === undefined;
  const quotaWaitMs = refillsUnsized && spentFor > run.options.maxDelayMs ? undefined : spentFor;
  return { throttled: false, absorbed: false, quotaWaitMs };
}

/** What an answer that is no throttle asks of its call: nothing (only a throttle's is marked `throttled`). */
export const NO_PUSHBACK: Pushback = Object.freeze({ throttled: false, absorbed: false, quotaWaitMs: undefined });

/** What an answer said of its key's rate limit (`rate-gate.ts`'s `observe`). */
export interface Pushback {
  /** A throttle (`isThrottle`): the retry waits its turn at the key's limiter, needing no budget token. */
  throttled: boolean;
  /**
   * A bare refusal the origin's load explains (`guards/bare-refusals.ts`): the server serves others
   * meanwhile, so its retry spends none of `retries` and waits the first retry's backoff (`loop.ts`).
   */
  absorbed: boolean;
  /** A throttle whose quota is spent: when the quota frees a request (ms from then). */
  quotaWaitMs: number | undefined;
}
