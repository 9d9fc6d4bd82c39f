import { computeBackoff } from '../policy/backoff';
import type { ResolvedOptions } from '../policy/options';
import { typed } from '../policy/validate';
import { refuseRetry, refuseWait } from './stop';
import type { GateWait, Refusal, RetryFacts } from './stop';

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
 * The call's own wait: the server's `Retry-After` beats our guess, within the cap (with
 * `retryAfter: 'fail'`, the table stopped a longer one already). `0` or a past date means "no advice", and
 * then the jittered backoff still spreads the callers out; a throttle with no advice waits that
 * backoff too, as a 503 would.
 */
function ownWait(facts: RetryFacts, options: PlanOptions): Wait {
  const asked = facts.retryAfterMs;
  if (asked !== undefined && asked > 0) {
    const serverWait = Math.min(asked, options.maxDelayMs);
    return { delayMs: serverWait, source: 'retry-after', timerMs: serverWait };
  }
  // Past `retries` only a paced scope's refusal is retried (`GateWait.absorbs`): its turn at the gate
  // is its wait, the scope's pace, not a backoff grown past the last retry's, protects the server.
  if (facts.retry >= options.retries) return { delayMs: 0, source: 'backoff', timerMs: 0 };
  const input = {
    retry: facts.retry,
    baseDelayMs: options.baseDelayMs,
    maxDelayMs: options.maxDelayMs,
    previousDelayMs: facts.previousDelayMs,
  };
  const backoff = computeBackoff(options.jitter, input, options.random);
  return { delayMs: backoff, source: 'backoff', timerMs: backoff, backoffMs: backoff };
}

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
  } catch (threw) {
    return { threw };
  }
  if (chosen === undefined) return own;
  if (typeof chosen !== 'number' || !(chosen >= 0)) {
    const threw = new TypeError(
      `axios-resilience: delay() must return a number of ms >= 0 or undefined, got ${typed(chosen)}`,
    );
    return { threw };
  }
  const mine = Math.min(chosen, options.maxDelayMs);
  if (asked !== undefined && asked >= mine) return own;
  return { ...own, delayMs: mine, source: 'delay', timerMs: mine };
}

/**
 * The whole wait is the longer of the call's own wait and its turn at the key's gate. The call
 * sleeps its own wait only when that is the longer, and then takes its turn; else it goes to the
 * gate at once and waits there, in its place in the queue (a server's pause of the key is in that
 * turn, so it is never waited twice).
 */
function withGate(own: Wait, gate: GateWait | undefined): Wait {
  if (gate === undefined || gate.turnMs < own.delayMs) return own;
  const source = gate.turnMs > own.delayMs ? 'rate-limit' : own.source;
  return { ...own, delayMs: gate.turnMs, source, timerMs: 0 };
}

/** Retry after a wait, or stop with a reason. */
export function plan(facts: RetryFacts, options: PlanOptions): Step {
  const refused = refuseRetry(facts, options);
  if (refused !== undefined) return refused;
  const own = ownWait(facts, options);
  const chosen = facts.delay === undefined ? own : customWait(own, facts, options);
  if (!('delayMs' in chosen)) return chosen;
  const wait = withGate(chosen, facts.gate);
  return refuseWait(facts, wait) ?? wait;
}
