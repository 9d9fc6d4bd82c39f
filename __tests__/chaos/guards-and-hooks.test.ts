/**
 * Injected outcomes are real to the engine: the breaker counts them and opens, the budget pays for
 * their retries, the rate limiter is engaged by an injected 429, and every hook sees them (marked).
 * Real node:http server on 127.0.0.1; fake timers where a wait matters.
 */
import type { AxiosError } from 'axios';
import { CircuitOpenError } from '../../lib';
import type { GiveUpEvent, RateLimitEvent, RetryContext, RetryEvent } from '../../lib';
import { fake, rejection, until } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { serverPerTest } from '../support/test-server';

const t = serverPerTest();
const setup = setupOn(t, 'http');

async function failure(promise: Promise<unknown>): Promise<AxiosError> {
  return (await rejection(promise)) as unknown as AxiosError;
}

test('injected 503s open the breaker: later calls, spared or not, are refused without being sent', async () => {
  const changes: string[] = [];
  const { http, plugin } = setup({
    retries: 0,
    breaker: { volumeThreshold: 5 },
    onCircuitStateChange: ({ state }) => void changes.push(state),
    chaos: { faults: [{ rate: 1, status: 503 }] },
  });
  const url = `${t.server.url}/r`;
  for (let i = 0; i < 5; i++) expect((await failure(http.get(url))).response?.status).toBe(503);
  expect(plugin.breaker(url)?.opened).toBe(true);
  expect(changes).toEqual(['open']);
  const refused = (await rejection(http.get(url, { retry: { chaos: false } }))) as unknown as CircuitOpenError;
  expect(refused).toBeInstanceOf(CircuitOpenError);
  expect(t.server.requests).toHaveLength(0);
});

test('the budget pays for the retries of injected failures, and refuses them when spent', async () => {
  const { http } = setup({
    retries: 3,
    budget: { ratio: 0, minPerSecond: 2, windowMs: 1000 },
    chaos: { faults: [{ rate: 1, error: 'ECONNRESET' }] },
  });
  const error = await failure(http.get(`${t.server.url}/r`));
  // Two tokens in the one-second window, then none: the third retry is refused.
  expect(error.config?.retryState).toMatchObject({ attempts: 3, injected: 3, stopReason: 'budget-exhausted' });
});

test('an injected 429 with Retry-After engages the rate limiter and the retry waits what it asks', async () => {
  fake();
  const engaged: RateLimitEvent[] = [];
  const retried: RetryEvent[] = [];
  const { http, plugin } = setup({
    retries: 1,
    onRateLimit: (event) => void engaged.push(event),
    onRetry: (event) => void retried.push(event),
    chaos: { faults: [{ rate: 1, status: 429, headers: { 'Retry-After': '2' } }] },
  });
  const url = `${t.server.url}/r`;
  const call = failure(http.get(url));
  await until(() => retried.length === 1);
  expect(retried[0]).toMatchObject({ delayMs: 2000, reason: 'rate-limited', injected: true });
  expect(engaged.map((e) => e.state)).toEqual(['engaged']);
  expect(plugin.limiter(url)?.state).toBe('on');
  await jest.advanceTimersByTimeAsync(2000);
  const error = await call;
  expect(error.response?.status).toBe(429);
  expect(error.config?.retryState).toMatchObject({ attempts: 2, delaysMs: [2000], injected: 2 });
  expect(t.server.requests).toHaveLength(0);
});

test('shouldRetry sees the injected error, marked, and its verdict stands', async () => {
  const asked: RetryContext[] = [];
  const { http } = setup({
    shouldRetry: (ctx) => {
      asked.push(ctx);
      return false;
    },
    chaos: { faults: [{ rate: 1, status: 503 }] },
  });
  const error = await failure(http.get(`${t.server.url}/r`));
  expect(asked).toHaveLength(1);
  expect(asked[0]!.decision).toEqual({ retry: true, reason: '503' });
  expect(asked[0]!.error).toBe(error);
  expect((asked[0]!.error as unknown as { injected: unknown }).injected).toEqual({
    fault: 0,
    phase: 'before',
    kind: 503,
  });
  expect(error.config?.retryState).toMatchObject({ attempts: 1, injected: 1, stopReason: 'not-retryable' });
});

test('onGiveUp gets the injected count; a real failure after injected ones is not marked', async () => {
  const gaveUp: GiveUpEvent[] = [];
  const retried: RetryEvent[] = [];
  t.handler = (_req, res) => res.writeHead(502).end();
  const { http } = setup({
    retries: 2,
    onGiveUp: (event) => void gaveUp.push(event),
    onRetry: (event) => void retried.push(event),
    // The fault matches /r only; the hook sends every retry elsewhere.
    chaos: { faults: [{ rate: 1, status: 503, match: { path: '/r' } }] },
  });
  const error = await failure(http.get(`${t.server.url}/r`, { retry: { beforeAttempt: moveAfterFirst } }));
  expect(error.response?.status).toBe(502);
  expect((error as unknown as { injected?: unknown }).injected).toBeUndefined();
  expect(retried.map((e) => [e.reason, e.injected])).toEqual([
    ['503', true],
    ['502', undefined],
  ]);
  expect(gaveUp).toHaveLength(1);
  expect(gaveUp[0]!.retryState).toMatchObject({ attempts: 3, injected: 1, stopReason: 'retries-exhausted' });
  expect(t.server.requests.map((r) => r.url)).toEqual(['/elsewhere', '/elsewhere']);
});

/** A beforeAttempt hook that sends every retry to another path (the fault matches only `/r`). */
function moveAfterFirst(config: { url?: string }, { attempt }: { attempt: number }): void {
  if (attempt > 1) config.url = config.url!.replace(/\/r$/, '/elsewhere');
}

test("the attempt header marks an attempt whose answer is dropped ('<n>; chaos'), for the OpenTelemetry span", async () => {
  const { http } = setup({
    retries: 2,
    attemptHeader: true,
    chaos: { faults: [{ rate: 1, status: 503, phase: 'after', match: { path: '/after' } }] },
  });
  await failure(http.get(`${t.server.url}/after`));
  expect((await http.get(`${t.server.url}/plain`)).status).toBe(200);
  expect(t.server.requests.map((r) => [r.url, r.headers['x-retry-attempt']])).toEqual([
    ['/after', '1; chaos'],
    ['/after', '2; chaos'],
    ['/after', '3; chaos'],
    ['/plain', '1'],
  ]);
});
