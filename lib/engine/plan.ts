import { computeBackoff } from '../policy/backoff';
import type { Decision } from '../policy/classify';
import type { ResolvedOptions } from '../policy/options';
import type { StopReason } from '../types';
import { typed } from '../policy/validate';

/**
 * The plan: after a failed attempt the table has judged, an ordered list of guards decides whether
 * the call is retried, and after how long. Each guard is a pure function of the facts below and
 * the options; the first to object stops the call with its reason. The wait is chosen between the
 * guards that do not depend on it and those that do. Adding a stop reason is one guard here and one
 * row in `__tests__/engine/plan.test.ts`.
 *
 * The retry budget is the one guard with an effect (it takes a token), so it is not here: it runs
 * after the plan allows a retry (`RetryToken`, `guards/origin-budget.ts`), and a retry refused here never spends a token.
 */

/** What the plan knows about the call when an attempt has failed. */
export interface RetryFacts {
  /** The decision table's word on the attempt, with `shouldRetry`'s over it. */
  decision: Decision;
  /** Retries planned before this one (0 before the first retry). */
  retry: number;
  /** A browser hid why the attempt failed, and it may be a CORS refusal. */
  suspectedCors: boolean;
  /** `plugin.close()` was called. */
  closed: boolean;
  /**
   * What the server asks this call to wait, in ms: its `Retry-After` (or `retry-after-ms`), else for
   * a throttle, its spent quota's reset; `undefined` without a valid one.
   */
  retryAfterMs: number | undefined;
  /** The wait before the last retry (decorrelated jitter grows from it). */
  previousDelayMs: number;
  /** The time the deadline leaves, in ms; `undefined` without one. */
  timeLeftMs: number | undefined;
  /** The breaker would refuse the retry (it opened, and this call is not its probe). */
  breakerRefuses: boolean;
  /** The body can be sent again (a stream kept whole, within `replay.maxBytes`, or a body factory). */
  bodyReplayable: boolean;
  /** The key's rate limiter is on: what its gate would hold a send made now to. `undefined` otherwise. */
  gate?: GateWait | undefined;
  /**
   * The caller's `delay`, bound to the failure being retried: the wait it wants given the one
   * computed and the server's (`undefined`: the computed one). It may throw.
   */
  delay?: ((computedMs: number, serverMs: number | undefined) => unknown) | undefined;
}

/** What the key's gate (its rate limiter, while on) would hold a send made now to. */
export interface GateWait {
  /** How long until the send's turn, in ms: the key's hold and the queue ahead (`Infinity`: the queue is full). */
  turnMs: number;
  /** How long the key is held from now (a server's pause, a spent quota's reset), in ms; 0 when it is not. */
  heldForMs: number;
}

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

/** The plan's answer: stop, with a reason (and what a hook threw), or wait and retry. */
export type Step = { stop: StopReason; hookError?: unknown } | Wait;

type Guard = (facts: RetryFacts, options: PlanOptions) => StopReason | undefined;
type WaitGuard = (facts: RetryFacts, wait: Wait) => StopReason | undefined;

/** Guards that need no wait, in order. */
const BEFORE_WAIT: readonly Guard[] = [
  // The table (or shouldRetry) said no. A write the browser failed opaquely says why it was not repeated.
  ({ decision, suspectedCors }) =>
    decision.retry
      ? undefined
      : suspectedCors && decision.stopReason === 'non-idempotent'
        ? 'cors-suspected'
        : decision.stopReason,
  // Never a truncated or empty retry: a stream past the replay bound was sent once.
  ({ bodyReplayable }) => (bodyReplayable ? undefined : 'body-not-replayable'),
  // The key's quota is spent until later than any wait may last: say when, rather than wait.
  ({ gate }, { maxDelayMs }) => (gate !== undefined && gate.heldForMs > maxDelayMs ? 'rate-limited' : undefined),
  ({ retry }, { retries }) => (retry >= retries ? 'retries-exhausted' : undefined),
  // A suspected CORS refusal gets one retry (for a blip at first contact), not all of them.
  ({ retry, suspectedCors }) => (retry >= 1 && suspectedCors ? 'cors-suspected' : undefined),
  // A call in flight when the plugin closed must not start a wait close() cannot end.
  ({ closed }) => (closed ? 'aborted' : undefined),
];

/** Guards that judge the chosen wait, in order. */
const AFTER_WAIT: readonly WaitGuard[] = [
  // The key's queue is at its bound, or waiting in it would outlast the deadline (a server's own
  // Retry-After past the deadline stays 'deadline', as without a limiter).
  ({ timeLeftMs }, { delayMs, source }) =>
    delayMs === Infinity || (source === 'rate-limit' && timeLeftMs !== undefined && delayMs >= timeLeftMs)
      ? 'rate-limited'
      : undefined,
  ({ timeLeftMs }, { delayMs }) => (timeLeftMs !== undefined && delayMs >= timeLeftMs ? 'deadline' : undefined),
  // An open breaker will not let the retry out; waiting it out would only hold the caller.
  ({ breakerRefuses }) => (breakerRefuses ? 'circuit-open' : undefined),
];

/**
 * The call's own wait: the server's `Retry-After` beats our guess, within the cap (or, with
 * `retryAfter: 'fail'`, a longer one stops the call). `0` or a past date means "no advice", and
 * then the jittered backoff still spreads the callers out; a throttle with no advice waits that
 * backoff too, as a 503 would.
 */
function ownWait(facts: RetryFacts, options: PlanOptions): Step {
  const asked = facts.retryAfterMs;
  if (asked !== undefined && asked > options.maxDelayMs && options.retryAfter === 'fail') {
    return { stop: 'retry-after-too-long' };
  }
  if (asked !== undefined && asked > 0) {
    const serverWait = Math.min(asked, options.maxDelayMs);
    return { delayMs: serverWait, source: 'retry-after', timerMs: serverWait };
  }
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
function customWait(own: Wait, facts: RetryFacts, options: PlanOptions): Step {
  const asked = facts.retryAfterMs !== undefined && facts.retryAfterMs > 0 ? own.delayMs : undefined;
  let chosen: unknown;
  try {
    chosen = facts.delay!(own.delayMs, asked);
  } catch (hookError) {
    return { stop: 'hook-failed', hookError };
  }
  if (chosen === undefined) return own;
  if (typeof chosen !== 'number' || !(chosen >= 0)) {
    const hookError = new TypeError(
      `axios-resilience: delay() must return a number of ms >= 0 or undefined, got ${typed(chosen)}`,
    );
    return { stop: 'hook-failed', hookError };
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
  for (const guard of BEFORE_WAIT) {
    const reason = guard(facts, options);
    if (reason !== undefined) return { stop: reason };
  }
  let own = ownWait(facts, options);
  if (!('stop' in own) && facts.delay !== undefined) own = customWait(own, facts, options);
  if ('stop' in own) return own;
  const wait = withGate(own, facts.gate);
  for (const guard of AFTER_WAIT) {
    const reason = guard(facts, wait);
    if (reason !== undefined) return { stop: reason };
  }
  return wait;
}
