import type { StopReason } from '../types';
import type { Ending } from './stop';

/**
 * Every stop reason, in one table: which rule decides it (the one file that names it), and the error
 * the caller gets. `stop.ts` turns the facts a step reports into these reasons; `outcome.ts` finishes
 * the call with them; `says` below is what the failure's story adds for a reason that needs words.
 *
 * | reason                 | decided by                                                      | the caller gets                                   |
 * | ---------------------- | --------------------------------------------------------------- | ------------------------------------------------- |
 * | `not-retryable`        | the decision table (`policy/classify.ts`), `shouldRetry`        | the attempt's error (or response, resolved)       |
 * | `non-idempotent`       | the write rule (`policy/classify.ts`)                           | the attempt's error                               |
 * | `aborted`              | a cancel (`hooks.ts`'s `cancellation`), `close()` (`stop.ts`)   | the call's `CanceledError`, or the last failure   |
 * | `retries-exhausted`    | the plan (`stop.ts`'s `refuseRetry`)                            | the last failure                                  |
 * | `retry-after-too-long` | the plan, with `retryAfter: 'fail'`                             | the last failure                                  |
 * | `body-not-replayable`  | the plan, over the body's plan (`body.ts`)                      | the last failure                                  |
 * | `cors-suspected`       | the plan, over the CORS evidence (`guards/cors.ts`)             | the last failure                                  |
 * | `deadline`             | the deadline (`Deadline` in `hooks.ts`, `pipeline.ts`)         | the last failure, or a timeout error of its own   |
 * | `circuit-open`         | the breaker (`breaker-gate.ts`)                                 | a `CircuitOpenError` caused by the last failure   |
 * | `budget-exhausted`     | the retry budget (`guards/local-budget.ts`)                    | the last failure                                  |
 * | `rate-limited`         | the rate limiter (`rate-gate.ts`)                               | the last failure, or `ERR_RATE_LIMITED`           |
 * | `hook-failed`          | a hook that threw (`hooks.ts`)                                  | the last failure, the hook's error as its `cause` |
 */

/** What the story says after `stopped: <reason>` (with what to do, where the reason needs it). */
export function says(run: Ending, reason: StopReason, error: unknown): string {
  switch (reason) {
    case 'deadline':
      return run.options.deadlineMs === undefined ? '' : ` of ${run.options.deadlineMs} ms`;
    case 'non-idempotent':
      return ` — ${dedupeAdvice(run)}`;
    case 'rate-limited': {
      const at = run.state.retryAt;
      return at === undefined ? '' : ` until ${new Date(at).toISOString()}`;
    }
    case 'hook-failed': {
      const thrown = run.state.hookError;
      // The hook's own error is the one the caller gets (a body factory's): its words are said already.
      if (thrown === error) return '';
      return thrown instanceof Error
        ? `: ${thrown.name}: ${thrown.message}`
        : thrown === undefined
          ? ''
          : `: ${String(thrown)}`;
    }
    default:
      return '';
  }
}

/**
 * Why a write was not repeated, and what would let it be: its server is not declared to dedupe the
 * key (naming the origin exactly as the call spelled it, beside what was declared, since
 * `localhost` and `127.0.0.1` are two origins), or the call carries no key at all.
 */
function dedupeAdvice(run: Ending): string {
  const { method, origin } = run;
  const keys = run.options.idempotencyKey;
  const done = `a ${method} to ${origin} may have been processed`;
  if (keys === false || run.state.idempotencyKey === undefined) {
    return `${done}, and it carries no Idempotency-Key`;
  }
  const declared = keys.declared;
  const listed =
    declared === undefined || declared.length === 0 ? '' : ` (which lists ${declared.slice(0, 3).join(', ')})`;
  return `${done}, and that origin is not in idempotencyKey.serverDedupes${listed}`;
}
