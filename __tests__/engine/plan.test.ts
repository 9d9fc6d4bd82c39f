/**
 * The plan, as a table: every stop reason a call can end with, and every source of a wait. The
 * plan's guards are pure functions of the facts and the options, so each row is one call of
 * `plan()` (or of the one effectful guard, the retry token; or of the end of a hook), with no
 * axios and no sockets. A new stop reason is one guard and one row here: the `covered` record
 * below does not compile until every `StopReason` has a row.
 */
import { RetryToken } from '../../lib/guards/local-budget';
import { CircuitOpenError } from '../../lib/types/errors';
import { halt } from '../../lib/engine/stop';
import type { Halt, Ending, RetryFacts } from '../../lib/engine/stop';
import { plan } from '../../lib/engine/plan';
import type { PlanOptions, Step } from '../../lib/engine/plan';
import type { RetryBudgetLike, StopReason } from '../../lib/types';

const options: PlanOptions = {
  retries: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  jitter: 'full',
  retryAfter: 'clamp',
  random: () => 0.5,
};

const facts = (over: Partial<RetryFacts> = {}): RetryFacts => ({
  decision: { retry: true, reason: '503' },
  retry: 0,
  suspectedCors: false,
  closed: false,
  retryAfterMs: undefined,
  previousDelayMs: 500,
  timeLeftMs: undefined,
  breakerRefuses: false,
  bodyReplayable: true,
  ...over,
});

const no = (stopReason: 'not-retryable' | 'non-idempotent' | 'aborted', reason = '503') => ({
  decision: { retry: false as const, stopReason, reason },
});

type Row = [name: string, over: Partial<RetryFacts>, options: Partial<PlanOptions>, step: Step];

const rows: Row[] = [
  // Waits.
  [
    'the first retry waits full jitter: random × base',
    {},
    {},
    { delayMs: 250, source: 'backoff', timerMs: 250, backoffMs: 250 },
  ],
  [
    'the third retry: random × base × 2^2',
    { retry: 2 },
    {},
    { delayMs: 1000, source: 'backoff', timerMs: 1000, backoffMs: 1000 },
  ],
  [
    'the backoff is capped by maxDelayMs',
    { retry: 20 },
    { retries: 30 },
    { delayMs: 15_000, source: 'backoff', timerMs: 15_000, backoffMs: 15_000 },
  ],
  [
    'no jitter: base × 2^retry',
    { retry: 1 },
    { jitter: 'none' },
    { delayMs: 1000, source: 'backoff', timerMs: 1000, backoffMs: 1000 },
  ],
  [
    'Retry-After replaces the backoff',
    { retryAfterMs: 1500 },
    {},
    { delayMs: 1500, source: 'retry-after', timerMs: 1500 },
  ],
  [
    'a longer Retry-After is clamped to maxDelayMs',
    { retryAfterMs: 86_400_000 },
    {},
    { delayMs: 30_000, source: 'retry-after', timerMs: 30_000 },
  ],
  [
    'Retry-After: 0 means no advice: the jittered backoff',
    { retryAfterMs: 0 },
    {},
    { delayMs: 250, source: 'backoff', timerMs: 250, backoffMs: 250 },
  ],
  [
    'a wait that ends just before the deadline goes ahead',
    { timeLeftMs: 251 },
    {},
    { delayMs: 250, source: 'backoff', timerMs: 250, backoffMs: 250 },
  ],
  [
    'a throttled retry with no hint waits the backoff a 503 would, then its turn',
    { decision: { retry: true, reason: '429' }, gate: { turnMs: 40, heldForMs: 0 } },
    {},
    { delayMs: 250, source: 'backoff', timerMs: 250, backoffMs: 250 },
  ],
  [
    'a retry whose turn comes after its backoff waits at the gate alone, and reports the turn',
    { decision: { retry: true, reason: '429' }, gate: { turnMs: 900, heldForMs: 0 } },
    {},
    { delayMs: 900, source: 'rate-limit', timerMs: 0, backoffMs: 250 },
  ],
  [
    "a throttled retry with Retry-After waits the queue the server's wait holds, on no timer",
    { decision: { retry: true, reason: '429' }, retryAfterMs: 1000, gate: { turnMs: 1000, heldForMs: 1000 } },
    {},
    { delayMs: 1000, source: 'retry-after', timerMs: 0 },
  ],
  [
    'a throttled retry whose wait holds only it (a reset not yet proved) sleeps it, then takes its turn',
    { decision: { retry: true, reason: '429' }, retryAfterMs: 720, gate: { turnMs: 20, heldForMs: 0 } },
    {},
    { delayMs: 720, source: 'retry-after', timerMs: 720 },
  ],
  [
    "retryAfter: 'fail' stops on a throttle's reset past maxDelayMs that does not hold the key",
    { decision: { retry: true, reason: '429' }, retryAfterMs: 40_000, gate: { turnMs: 0, heldForMs: 0 } },
    { retryAfter: 'fail' },
    { stop: 'retry-after-too-long' },
  ],
  [
    "a 503's retry while its key is paused waits the pause at the gate, and reports it",
    { gate: { turnMs: 5000, heldForMs: 5000 } },
    {},
    { delayMs: 5000, source: 'rate-limit', timerMs: 0, backoffMs: 250 },
  ],
  [
    'a full queue: rate-limited',
    { decision: { retry: true, reason: '503' }, gate: { turnMs: Infinity, heldForMs: 0 } },
    {},
    { stop: 'rate-limited' },
  ],
  [
    'a key held past maxDelayMs (a spent quota): rate-limited at once',
    { decision: { retry: true, reason: '403' }, gate: { turnMs: 3_600_000, heldForMs: 3_600_000 } },
    {},
    { stop: 'rate-limited', heldForMs: 3_600_000 },
  ],
  [
    'a key held past maxDelayMs comes before retries used up',
    { retry: 5, gate: { turnMs: 3_600_000, heldForMs: 3_600_000 } },
    {},
    { stop: 'rate-limited', heldForMs: 3_600_000 },
  ],
  [
    'a key held just up to maxDelayMs waits',
    { gate: { turnMs: 30_000, heldForMs: 30_000 } },
    {},
    { delayMs: 30_000, source: 'rate-limit', timerMs: 0, backoffMs: 250 },
  ],
  // Stops, in the order the guards run.
  ['the table said no: not-retryable', no('not-retryable', '400'), {}, { stop: 'not-retryable' }],
  ['the table said no: non-idempotent', no('non-idempotent'), {}, { stop: 'non-idempotent' }],
  ['the table said no: a cancel', no('aborted', 'cancelled'), {}, { stop: 'aborted' }],
  [
    'a write the browser failed opaquely: cors-suspected',
    { ...no('non-idempotent'), suspectedCors: true },
    {},
    { stop: 'cors-suspected' },
  ],
  [
    'the table comes first: not-retryable even out of retries',
    { ...no('not-retryable'), retry: 5 },
    {},
    { stop: 'not-retryable' },
  ],
  ['a stream body past replay.maxBytes was sent once', { bodyReplayable: false }, {}, { stop: 'body-not-replayable' }],
  ['the table comes before the body', { ...no('not-retryable'), bodyReplayable: false }, {}, { stop: 'not-retryable' }],
  ['retries used up', { retry: 5 }, {}, { stop: 'retries-exhausted' }],
  ['retries: 0', {}, { retries: 0 }, { stop: 'retries-exhausted' }],
  [
    'a suspected CORS refusal is retried once',
    { suspectedCors: true },
    {},
    { delayMs: 250, source: 'backoff', timerMs: 250, backoffMs: 250 },
  ],
  ['…and not twice', { suspectedCors: true, retry: 1 }, {}, { stop: 'cors-suspected' }],
  ['the plugin closed', { closed: true }, {}, { stop: 'aborted' }],
  [
    "a Retry-After past the cap with retryAfter: 'fail'",
    { retryAfterMs: 60_000 },
    { retryAfter: 'fail' },
    { stop: 'retry-after-too-long' },
  ],
  [
    "…but within it, 'fail' waits",
    { retryAfterMs: 20_000 },
    { retryAfter: 'fail' },
    { delayMs: 20_000, source: 'retry-after', timerMs: 20_000 },
  ],
  ['the wait would end at the deadline', { timeLeftMs: 250 }, {}, { stop: 'deadline' }],
  ['a Retry-After past the deadline', { retryAfterMs: 5000, timeLeftMs: 4000 }, {}, { stop: 'deadline' }],
  ['the breaker would refuse the retry', { breakerRefuses: true }, {}, { stop: 'circuit-open' }],
  ['the deadline is judged before the breaker', { breakerRefuses: true, timeLeftMs: 10 }, {}, { stop: 'deadline' }],
  [
    "the origin's queue would hold the retry past the deadline",
    { decision: { retry: true, reason: '429' }, gate: { turnMs: 800, heldForMs: 0 }, timeLeftMs: 500 },
    {},
    { stop: 'rate-limited' },
  ],
  [
    "a server's Retry-After past the deadline is still 'deadline' when the queue holds it",
    {
      decision: { retry: true, reason: '429' },
      retryAfterMs: 800,
      gate: { turnMs: 800, heldForMs: 0 },
      timeLeftMs: 500,
    },
    {},
    { stop: 'deadline' },
  ],
  [
    "the origin's queue is at its bound",
    { decision: { retry: true, reason: '429' }, gate: { turnMs: Infinity, heldForMs: 0 } },
    {},
    { stop: 'rate-limited' },
  ],
  [
    "a Retry-After past the cap with retryAfter: 'fail' stops even a retry at the gate",
    { decision: { retry: true, reason: '429' }, retryAfterMs: 60_000, gate: { turnMs: 10, heldForMs: 0 } },
    { retryAfter: 'fail' },
    { stop: 'retry-after-too-long' },
  ],
];

test.each(rows)('%s', (_name, over, optionsOver, step) => {
  expect(plan(facts(over), { ...options, ...optionsOver })).toEqual(step);
});

test('a guard that stops the call draws no random number (seeded waits stay in step)', () => {
  let draws = 0;
  const counting = { ...options, random: () => (draws++, 0.5) };
  plan(facts({ retry: 5 }), counting);
  plan(facts(no('not-retryable')), counting);
  plan(facts({ closed: true }), counting);
  expect(draws).toBe(0);
  plan(facts(), counting);
  expect(draws).toBe(1);
});

describe('the guards after the plan, and the ends of hooks and waits', () => {
  const budget = (grants: boolean): RetryBudgetLike & { refunds: number } => ({
    refunds: 0,
    deposit: () => undefined,
    tryWithdraw: () => grants,
    refund() {
      this.refunds += 1;
    },
    state: () => ({ available: 0, requests: 0, retries: 0, granted: 0, refused: 0, mode: 'local' }),
    flush: () => Promise.resolve(),
  });

  test('a spent budget refuses the token: budget-exhausted; a granted token not sent goes back', async () => {
    expect(await new RetryToken(budget(false)).take()).toBe(false);
    const granting = budget(true);
    const token = new RetryToken(granting);
    expect(await token.take()).toBe(true);
    token.giveBack();
    token.giveBack();
    expect(granting.refunds).toBe(1);
    const sent = new RetryToken(granting);
    await sent.take();
    sent.spend();
    sent.giveBack();
    expect(granting.refunds).toBe(1);
  });

  const failure = new Error('503 from the server');
  const ending = (): Ending & { state: { hookError?: unknown; retryAt?: number } } =>
    ({
      config: { headers: {} },
      state: {},
      origin: 'http://api.test:80',
      failure,
      lastError: failure,
      lastResponse: undefined,
      shared: { now: () => 1_000 },
      deadline: { error: () => new Error('deadline passed') },
    }) as unknown as Ending & { state: { hookError?: unknown; retryAt?: number } };

  // What a step reports when the call cannot go on, and what the call then ends with (a call whose last attempt failed).
  const hookError = new Error('hook');
  test.each<[string, Halt, StopReason, 'failure' | 'hook' | 'circuit' | 'rate']>([
    [
      'a hook that throws: hook-failed, with the call’s own error',
      { how: 'failed', error: hookError },
      'hook-failed',
      'failure',
    ],
    [
      'a body factory that throws: hook-failed, with its error',
      { how: 'failed', error: hookError, own: true },
      'hook-failed',
      'hook',
    ],
    ['a hook past the deadline: deadline', { how: 'expired' }, 'deadline', 'failure'],
    ['plugin.close() during a hook or a wait: aborted', { how: 'closed' }, 'aborted', 'failure'],
    ['the breaker refuses the send: circuit-open, a CircuitOpenError', { how: 'breaker' }, 'circuit-open', 'circuit'],
    ['a spent budget refuses a retry: budget-exhausted', { how: 'budget' }, 'budget-exhausted', 'failure'],
    [
      'the limiter turns the send away: rate-limited',
      { how: 'rate-held', key: 'GET /a', retryAt: 5_000 },
      'rate-limited',
      'failure',
    ],
    [
      'a body that cannot be made ready: not-retryable',
      { how: 'unreadable', error: hookError },
      'not-retryable',
      'hook',
    ],
    ['a row refused: its reason', { how: 'refused', stop: 'retries-exhausted' }, 'retries-exhausted', 'failure'],
    [
      'a row held the key past maxDelayMs: retryAt',
      { how: 'refused', stop: 'rate-limited', heldForMs: 60_000 },
      'rate-limited',
      'rate',
    ],
  ])('%s', (_name, fact, reason, error) => {
    const run = ending();
    const outcome = halt(run, fact);
    expect(outcome.stopReason).toBe(reason);
    const thrown = (outcome as { error: unknown }).error;
    if (error === 'failure' || error === 'rate') expect(thrown).toBe(failure);
    if (error === 'hook') expect(thrown).toBe(hookError);
    if (error === 'circuit') expect((thrown as CircuitOpenError).cause).toBe(failure);
    if (fact.how === 'failed') expect(run.state.hookError).toBe(hookError);
    if (fact.how === 'rate-held') expect(run.state.retryAt).toBe(5_000);
    if (error === 'rate') expect(run.state.retryAt).toBe(61_000);
  });

  test('cancelled during a hook or a wait: aborted, with the call’s CanceledError', () => {
    const outcome = halt(ending(), { how: 'cancelled' }) as { error: Error; stopReason: StopReason };
    expect(outcome.stopReason).toBe('aborted');
    expect(outcome.error.name).toBe('CanceledError');
  });

  test('before anything failed: the deadline’s error, and the limiter’s own that says nothing was sent', () => {
    const fresh = { ...ending(), failure: undefined, lastError: undefined } as unknown as Ending;
    expect((halt(fresh, { how: 'expired' }) as { error: Error }).error.message).toBe('deadline passed');
    const held = halt(fresh, { how: 'rate-held', key: 'GET /a', retryAt: 5_000 }) as { error: Error };
    expect(held.error.message).toBe(
      'axios-resilience: GET /a is rate-limited: its quota is spent until 1970-01-01T00:00:05.000Z; nothing was sent',
    );
  });
});

// Every stop reason has a row above; this record stops compiling when a new reason has none.
const covered: Record<StopReason, string> = {
  'not-retryable': 'the table said no: not-retryable',
  'non-idempotent': 'the table said no: non-idempotent',
  aborted: 'the plugin closed',
  'cors-suspected': '…and not twice',
  'retries-exhausted': 'retries used up',
  'retry-after-too-long': "a Retry-After past the cap with retryAfter: 'fail'",
  deadline: 'the wait would end at the deadline',
  'circuit-open': 'the breaker would refuse the retry',
  'budget-exhausted': 'a spent budget refuses the token',
  'hook-failed': 'a hook that throws',
  'body-not-replayable': 'a stream body past replay.maxBytes was sent once',
  'rate-limited': "the origin's queue would hold the retry past the deadline",
};

test('every stop reason has a row', () => {
  const names = [...rows.map((r) => r[0]), 'a spent budget refuses the token', 'a hook that throws'];
  for (const name of Object.values(covered)) expect(names).toContain(name);
});
