import { computeBackoff } from '../policy/backoff';
import { DEFAULTS } from '../policy/defaults';
import type { JitterStrategy, RetryState } from '../types';
import type { IdempotentResource } from './resource';

/**
 * Assertions over what a call reports (`retryState`), for any test runner: each throws an `Error`
 * listing every broken rule, and returns nothing when all hold.
 */

/** The options the call ran with (the plugin's defaults for any left out), and what its server asked for. */
export interface RetryWaitBounds {
  /** @default 5 */
  retries?: number;
  /** @default 500 */
  baseDelayMs?: number;
  /** @default 30000 */
  maxDelayMs?: number;
  /** @default 'full' */
  jitter?: JitterStrategy;
  /** The call's `deadlineMs`: the waits together must fit in it. */
  deadlineMs?: number;
  /**
   * Per retry (index 0: the wait before the first retry), the wait the server asked for, in ms
   * (`Retry-After: 5` is 5000), or `undefined` where it asked for none. Such a wait is the server's,
   * clamped to `maxDelayMs`, not a backoff.
   * @default no server waits
   */
  serverWaitsMs?: ReadonlyArray<number | undefined>;
  /**
   * Slack on every bound, in ms, for a call that waited its turn at a rate limiter (its measured wait
   * is in `delaysMs`).
   * @default 0
   */
  toleranceMs?: number;
}

function failed(what: string, problems: string[]): void {
  if (problems.length > 0) throw new Error(`${what}:\n- ${problems.join('\n- ')}`);
}

/**
 * Checks that a call's waits (`retryState.delaysMs`) stay within the bounds its options allow: no
 * more retries than `retries`; each backoff within its jitter's range (full jitter: 0 to
 * `min(maxDelayMs, baseDelayMs * 2^retry)`); each wait the server asked for clamped to `maxDelayMs`
 * and no shorter than it asked (or the clamp); every wait at most `maxDelayMs`; all of them within
 * `deadlineMs`.
 *
 * @example
 * const response = await http.get('/v1/items');
 * assertRetryWaits(response.config.retryState, { baseDelayMs: 100, serverWaitsMs: [undefined, 5000] });
 */
export function assertRetryWaits(state: Pick<RetryState, 'delaysMs'> | undefined, bounds: RetryWaitBounds = {}): void {
  if (state === undefined || !Array.isArray(state.delaysMs)) {
    throw new Error('assertRetryWaits: no retryState (was the call made through the plugin?)');
  }
  const { retries = DEFAULTS.retries, baseDelayMs = DEFAULTS.baseDelayMs, maxDelayMs = DEFAULTS.maxDelayMs } = bounds;
  const jitter = bounds.jitter ?? DEFAULTS.jitter;
  const slack = bounds.toleranceMs ?? 0;
  const problems: string[] = [];
  const waits = state.delaysMs;
  if (waits.length > retries) problems.push(`${waits.length} waits, but retries is ${retries}`);
  let previous = baseDelayMs;
  waits.forEach((wait, retry) => {
    const asked = bounds.serverWaitsMs?.[retry];
    const input = { retry, baseDelayMs, maxDelayMs, previousDelayMs: previous };
    const [low, high, rule] =
      asked === undefined
        ? [
            computeBackoff(jitter, input, () => 0),
            computeBackoff(jitter, input, () => 1 - Number.EPSILON),
            `the ${jitter}-jitter backoff of retry ${retry + 1}`,
          ]
        : [Math.min(asked, maxDelayMs), maxDelayMs, `the server's ${asked} ms clamped to maxDelayMs ${maxDelayMs}`];
    if (wait < low - slack || wait > high + slack) {
      problems.push(`delaysMs[${retry}] = ${wait} is outside [${low}, ${high}], ${rule}`);
    }
    if (asked === undefined) previous = Math.max(wait, baseDelayMs);
  });
  const total = waits.reduce((sum, wait) => sum + wait, 0);
  if (bounds.deadlineMs !== undefined && total > bounds.deadlineMs + slack) {
    problems.push(`the waits add up to ${total} ms, past deadlineMs ${bounds.deadlineMs}`);
  }
  failed('assertRetryWaits: the waits broke the backoff bounds', problems);
}

/**
 * Checks that each call created exactly one resource on `resource` (a `createIdempotentResource()`),
 * and that nothing else was created: `resource.created` equals the number of calls, and the key
 * each call sent (`retryState.idempotencyKey`) created one resource.
 *
 * @example
 * const responses = await Promise.all(orders.map((order) => http.post('/v1/payments', order)));
 * assertCreatedOnce(payments, responses.map((r) => r.config.retryState));
 */
export function assertCreatedOnce(
  resource: IdempotentResource,
  states: ReadonlyArray<Pick<RetryState, 'idempotencyKey'> | undefined>,
): void {
  const problems: string[] = [];
  if (resource.created !== states.length) {
    problems.push(`${resource.created} resources created by ${states.length} calls`);
  }
  states.forEach((state, i) => {
    const key = state?.idempotencyKey;
    if (key === undefined) problems.push(`call ${i} sent no Idempotency-Key`);
    else if (resource.createdFor(key) !== 1)
      problems.push(`call ${i} (key ${key}) created ${resource.createdFor(key)}`);
  });
  failed('assertCreatedOnce: not exactly one resource per call', problems);
}
