import { AxiosError } from 'axios';
import type { AxiosResponse } from 'axios';
import { readAnswer } from '../policy/answer';
import { readFailure, type Decision } from '../policy/classify';
import type { RetryEvent } from '../types';
import { isInjected } from './chaos-mark';
import { releaseBody } from './body';
import type { CallRun } from './call-run';
import type { Attempt } from './pipeline';
import { cancellation, interruptible, runHook } from './hooks';
import { judge } from './judge';
import { finish } from './outcome';
import { plan } from './plan';
import { gateWait, observe } from './rate-gate';
import { attemptChain } from './pipeline';
import type { Sent } from './pipeline';
import { accountAt, answeredBy } from './redirects';
import type { Wait } from './plan';
import { halt } from './stop';
import type { Halt } from './stop';

/**
 * The attempt loop: send, judge, plan, wait, again, until a step ends the call. Each step is a
 * function below, and each rule a step calls on lives in a file of its own: the decision table
 * (`policy/classify.ts`, through `judge.ts`), the plan (`plan.ts`, the retry token in `guards/local-budget.ts`), the deadline,
 * the hooks, the breaker gate, hedging, bodies, and the end of a call (`outcome.ts`). A step returns
 * what happened as a value: a step that cannot go on reports a fact (`Halt`), which `stop.ts` alone
 * turns into a stop reason; only `finish` turns the outcome into the promise axios gets.
 */

/** Runs a call's attempts, from the first, through its breaker. */
export function runAttempts(run: CallRun): Promise<AxiosResponse> {
  return run.gate.pass(
    () => loop(run, undefined),
    () => finish(run, halt(run, { how: 'breaker' })),
  );
}

/**
 * The loop itself, from the first attempt, or (`first`) on from a first attempt sent without the
 * loop, which failed (the short way `plugin/adapter.ts` takes for most calls): begun under a closed
 * breaker or none, such a call is counted there already, and passes no gate.
 */
export async function loop(run: CallRun, first: Attempt | undefined): Promise<AxiosResponse> {
  if (first === undefined) {
    try {
      await run.body.prepare(run.base, run.options.retries);
    } catch (error) {
      // A form whose Blob parts cannot be read.
      return finish(run, halt(run, { how: 'unreadable', error }));
    }
  }
  let attempt = first ?? (await send(run));
  for (;;) {
    if ('halt' in attempt) return finish(run, halt(run, attempt.halt));
    const answeredAt = answeredBy(attempt, run.origin);
    if (answeredAt !== undefined) accountAt(run, answeredAt);
    // Each answer is read once, at the plugin's clock; the gate, the judge and the plan read that.
    run.answered = attempt;
    const failure = attempt.response === undefined ? readFailure(attempt.error, run.options) : undefined;
    const answer = (run.answer = readAnswer(attempt, run.shared.now(), run.shared.dialects, failure));
    if (attempt.error !== undefined) run.gate.attemptFailed(attempt.error);
    observe(run, answer);
    const verdict = await judge(run, attempt, answer);
    if ('accept' in verdict) return finish(run, { response: verdict.accept });
    if ('halt' in verdict) return finish(run, halt(run, verdict.halt));
    const planned = await retry(run, verdict.decision);
    if (!('delayMs' in planned)) return finish(run, halt(run, planned));
    // Its own wait here; its turn at the key's gate, if on, in `send` (counted into `delaysMs` there).
    const interruption = await wait(run, planned.timerMs);
    if (interruption !== undefined) return finish(run, halt(run, interruption));
    attempt = await send(run);
  }
}

/** Puts a retry's body on the config (made afresh, or replayed), then sends one attempt down the chain (`pipeline.ts`). Never rejects. */
async function send(run: CallRun): Promise<Sent> {
  const { config, state } = run;
  if (state.attempts > 0 && run.body.made) {
    const ended = await runHook(() => run.body.make(), run);
    // A body factory that throws fails the call with its own error: there is no body to send.
    if (ended.how !== 'done') return { halt: ended.how === 'failed' ? { ...ended, own: true } : ended };
  } else if (state.attempts > 0) {
    run.body.replay();
  }
  return attemptChain(run)(run, config);
}

/** Plans the retry a decision allows: the plan's guards, then a budget token, then `onRetry`. */
async function retry(run: CallRun, decision: Decision): Promise<Halt | Wait> {
  const { options, shared, state } = run;
  // A refusal the origin's load explains spends none of `retries`, and waits the first retry's backoff (`observe`).
  const retry = run.pushback.absorbed ? 0 : run.retries++;
  // While the key's limiter is on, its gate holds the retry like any other wait (`gateWait`). One
  // clock read for both waits, a server's wait until a date and the pause it set then equal: the
  // answer's, unless a predicate (which may await) was asked since.
  const asked = options.shouldRetry !== undefined || options.shouldRetryResponse !== undefined;
  const now = asked ? shared.now() : run.answer!.at;
  const gate = gateWait(run, now);
  // Read only when a retry is otherwise possible: a stream still being sent is read to its end first.
  const possible = decision.retry && (retry < options.retries || gate?.absorbs === true);
  const bodyReplayable = possible ? await run.body.replayable() : true;
  const step = plan(
    {
      decision,
      retry,
      bodyReplayable,
      suspectedCors: run.corsSensitive && shared.cors.suspect(run.origin, run.failure),
      closed: shared.closed,
      // The server's `Retry-After` (or `retry-after-ms`), else for a throttle, its spent quota's reset.
      retryAfterMs: run.answer?.waitMs ?? run.pushback.quotaWaitMs,
      previousDelayMs: run.previousDelayMs,
      timeLeftMs: run.deadline?.timeLeft(),
      breakerRefuses: run.gate.refusing,
      gate,
      delay: options.delay === undefined ? undefined : customDelay(run, options.delay),
    },
    options,
  );
  if ('threw' in step) return { how: 'failed', error: step.threw };
  if ('stop' in step) return { how: 'refused', ...step };
  if (step.backoffMs !== undefined) run.previousDelayMs = Math.max(step.backoffMs, options.baseDelayMs);
  // A throttle's retry takes no budget token: the server did not process the request, and the rate
  // limiter, not the budget, bounds such retries (paced at its scope's gate once the answers show the
  // rate is the cause; until then each waits its backoff). Any other failure's retry spends one, last,
  // so a retry refused above spends none.
  const paced = run.pushback.throttled && gate !== undefined;
  if (run.answer?.throttle !== true && !(await run.token!.take())) return { how: 'budget' };

  const onRetry = options.onRetry;
  const listened = shared.listeners.heard.retry !== undefined;
  if (onRetry !== undefined || listened) {
    const response = run.lastResponse;
    // A response that shouldRetryResponse asked to retry has no error of its own: the event gets one that says so.
    const error = retriedError(run);
    const event: RetryEvent = {
      attempt: state.attempts,
      delayMs: step.delayMs,
      delaySource: step.source,
      reason: paced ? 'rate-limited' : decision.reason,
      error,
      config: run.config,
    };
    if (isInjected(response ?? error)) event.injected = true;
    if (onRetry !== undefined) {
      const ended = await runHook(() => onRetry(event), run);
      if (ended.how !== 'done') return ended;
    }
    if (listened) shared.listeners.emit('retry', { ...event, origin: run.origin });
  }
  // The wait as it happens: its own wait now; if it then waits its turn at the limiter, the whole
  // wait from here to the send, by the clock (`waitTurn`).
  state.delaysMs.push(step.delayMs);
  run.decidedAt = shared.now();
  return step;
}

/** The caller's `delay`, bound to the failure being retried (`plan.ts` calls it with the waits). */
function customDelay(run: CallRun, delay: NonNullable<CallRun['options']['delay']>) {
  return (computedMs: number, serverMs: number | undefined): unknown =>
    delay({ attempt: run.retries, error: retriedError(run), computedMs, serverMs, config: run.config });
}

/** The failure a retry is planned for; for a response `shouldRetryResponse` asked to retry, an error that says so. */
function retriedError(run: CallRun): AxiosError {
  const response = run.lastResponse;
  if (response === undefined) return run.lastError!;
  return new AxiosError(
    'shouldRetryResponse asked to retry this response',
    'ERR_SHOULD_RETRY',
    run.config,
    response.request,
    response,
  );
}

/** Waits before the retry; ends the call on a cancel, `close()`, or a breaker that opened meanwhile. */
async function wait(run: CallRun, delayMs: number): Promise<Halt | undefined> {
  // The failed attempt's response body (a stream, with `responseType: 'stream'`) will never be read.
  releaseBody(run.last?.error ?? run.last);
  // A hook may have awaited across a close() (a cancel comes first; `interruptible` sees one made before the wait).
  if (run.shared.closed) return { how: cancellation(run.config) === undefined ? 'closed' : 'cancelled' };
  const ended = await interruptible(delayMs, run);
  if (ended.how !== 'done') return ended;
  // Other calls may have opened the breaker during the wait: the retry would fail anyway.
  return run.gate.refusing ? { how: 'breaker' } : undefined;
}
