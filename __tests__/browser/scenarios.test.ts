/**
 * The plugin in Chromium, on axios's two browser adapters: an app bundled with esbuild (imported by
 * package name, as a user would) calls a scripted server on the page's own origin; what the page
 * saw comes back to Node and is checked against what the server received.
 */
import { runInPage, webCryptoCalls } from './browser';
import { pageFixture } from './page-fixture';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const fixture = pageFixture('app');

describe.each(['xhr', 'fetch'] as const)('in Chromium, over the %s adapter', (adapter) => {
  const path = (name: string): string => `/api/${adapter}/${name}`;
  const TIMEOUT_CODE = adapter === 'xhr' ? 'ECONNABORTED' : 'ETIMEDOUT';

  test('a GET that gets 503, 503 is retried with backoff and ends with the 200', async () => {
    const url = fixture.server.route(path('flaky'), [503, 503, 200]);
    const seen = await runInPage(fixture.watched.page, { adapter, plugin: { baseDelayMs: 20 }, calls: [{ url }] });
    const [call] = seen.calls;
    expect(call).toMatchObject({ ok: true, status: 200, retryState: { attempts: 3 } });
    expect(fixture.server.requests(path('flaky'))).toHaveLength(3);
    expect(seen.retries.map((r) => [r.reason, r.delaySource])).toEqual([
      ['503', 'backoff'],
      ['503', 'backoff'],
    ]);
    // Full jitter: below base, then below 2 × base.
    expect(call!.retryState!.delaysMs[0]).toBeLessThan(20);
    expect(call!.retryState!.delaysMs[1]).toBeLessThan(40);
  });

  test('a POST keeps one Web Crypto Idempotency-Key through a 503 and a reset after commit: one payment', async () => {
    // `Connection: close` on the 503: the next attempt opens a new connection, so the reset reaches
    // the page (on a reused connection Chromium re-sends by itself; see the next test).
    const url = fixture.server.route(path('payments'), [
      { status: 503, headers: { connection: 'close' } },
      'commit-reset',
      { commit: 201 },
    ]);
    const before = await webCryptoCalls(fixture.watched.page);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: { baseDelayMs: 20, idempotencyKey: { serverDedupes: true } },
      calls: [{ method: 'post', url, data: { amount: 4200 } }],
    });
    const after = await webCryptoCalls(fixture.watched.page);
    const [call] = seen.calls;
    const key = call!.retryState!.idempotencyKey!;
    expect(key).toMatch(UUID_V4);
    expect(call).toMatchObject({ ok: true, status: 200, replayed: true, retryState: { attempts: 3 } });
    expect(seen.retries.map((r) => r.reason)).toEqual(['503', 'ERR_NETWORK']);
    const sent = fixture.server.requests(path('payments'));
    expect(sent.map((r) => [r.method, r.headers['idempotency-key']])).toEqual([
      ['POST', key],
      ['POST', key],
      ['POST', key],
    ]);
    expect([...fixture.server.payments(path('payments')).keys()]).toEqual([key]);
    // The key came from Web Crypto (uuid uses randomUUID where the page has it).
    expect(after.randomUUID + after.getRandomValues).toBeGreaterThan(before.randomUUID + before.getRandomValues);
  });

  test('Chromium re-sends a POST by itself when a reused connection drops before the answer; the key makes it safe', async () => {
    // The 503 leaves the connection open; the retry goes out on it, the server commits and drops it,
    // and Chromium (not the plugin) sends the request again on a new connection, unseen by the page.
    const url = fixture.server.route(path('payments-reused'), [503, 'commit-reset', { commit: 201 }]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: { baseDelayMs: 20, idempotencyKey: { serverDedupes: true } },
      calls: [{ method: 'post', url, data: { amount: 4200 } }],
    });
    const [call] = seen.calls;
    const key = call!.retryState!.idempotencyKey!;
    expect(call).toMatchObject({ ok: true, status: 200, replayed: true, retryState: { attempts: 2 } });
    expect(seen.retries.map((r) => r.reason)).toEqual(['503']);
    const sent = fixture.server.requests(path('payments-reused'));
    expect(sent.map((r) => r.headers['idempotency-key'])).toEqual([key, key, key]);
    expect(fixture.server.payments(path('payments-reused')).size).toBe(1);
  });

  test('Retry-After on a 429 sets the wait (clamped to maxDelayMs), and the server sees the gap', async () => {
    const url = fixture.server.route(path('rate-limited'), [{ status: 429, headers: { 'retry-after': '2' } }, 200]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: { baseDelayMs: 5, maxDelayMs: 250 },
      calls: [{ url }],
    });
    expect(seen.calls[0]).toMatchObject({ ok: true, status: 200, retryState: { attempts: 2, delaysMs: [250] } });
    // The browser build's default plugin has no cross-call limiter: the 429's retry waits the server's
    // wait by itself (reason '429', not a limiter's 'rate-limited'; rate-limit.test.ts has both).
    expect(seen.retries.map((r) => [r.reason, r.delaySource])).toEqual([['429', 'retry-after']]);
    const [first, second] = fixture.server.requests(path('rate-limited'));
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(240);
  });

  test('aborting during a wait rejects at once with CanceledError and sends nothing more', async () => {
    const url = fixture.server.route(path('abort'), [503]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: { baseDelayMs: 10_000, maxDelayMs: 10_000, jitter: 'none' },
      calls: [{ url, abortAfterRetryMs: 30 }],
    });
    const [call] = seen.calls;
    expect(call!.error).toMatchObject({ code: 'ERR_CANCELED', isCancel: true });
    expect(call!.retryState).toMatchObject({ attempts: 1, stopReason: 'aborted' });
    expect(call!.elapsedMs).toBeLessThan(2_000);
    expect(seen.giveUps).toEqual([{ call: 0, stopReason: 'aborted' }]);
    expect(fixture.server.requests(path('abort'))).toHaveLength(1);
  });

  test(`the per-attempt timeout ends a slow attempt (${TIMEOUT_CODE}) and the retry gets the 200`, async () => {
    const url = fixture.server.route(path('slow'), [{ status: 200, delayMs: 5_000 }, 200]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      timeout: 500,
      plugin: { baseDelayMs: 20 },
      calls: [{ url }],
    });
    expect(seen.calls[0]).toMatchObject({ ok: true, status: 200, retryState: { attempts: 2 } });
    expect(seen.retries.map((r) => r.code)).toEqual([TIMEOUT_CODE]);
    expect(seen.calls[0]!.elapsedMs).toBeLessThan(4_000);
    expect(fixture.server.requests(path('slow'))).toHaveLength(2);
  });

  test('deadlineMs: no retry is scheduled whose wait would end after the deadline', async () => {
    const url = fixture.server.route(path('deadline-wait'), [503]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: { baseDelayMs: 200, maxDelayMs: 10_000, jitter: 'none', deadlineMs: 1_000 },
      calls: [{ url }],
    });
    const [call] = seen.calls;
    // Waits of 200, 400, 800 ms: the third would end past 1 s, so the call stops before it (after
    // the second wait, or the first when attempts are slow) and well before 1 s.
    const { attempts, delaysMs, stopReason } = call!.retryState!;
    expect(call).toMatchObject({ ok: false, error: { status: 503 } });
    expect(stopReason).toBe('deadline');
    expect([2, 3]).toContain(attempts);
    expect(delaysMs).toEqual([200, 400].slice(0, attempts - 1));
    expect(call!.elapsedMs).toBeLessThan(1_000);
    expect(fixture.server.requests(path('deadline-wait'))).toHaveLength(attempts);
  });

  test('deadlineMs bounds the whole call: an attempt still in flight is ended at the deadline', async () => {
    const url = fixture.server.route(path('deadline-flight'), [{ status: 503, delayMs: 3_000 }]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: { baseDelayMs: 20, deadlineMs: 300 },
      calls: [{ url }],
    });
    const [call] = seen.calls;
    expect(call).toMatchObject({ ok: false, error: { isAxiosError: true } });
    expect(call!.retryState).toMatchObject({ attempts: 1, stopReason: 'deadline' });
    expect(call!.elapsedMs).toBeGreaterThanOrEqual(290);
    expect(call!.elapsedMs).toBeLessThan(1_500);
    expect(fixture.server.requests(path('deadline-flight'))).toHaveLength(1);
  });

  test('hedging: a slow first copy loses to a hedged copy sent after 50 ms', async () => {
    // The first copy is slow by its attempt header ('1'; the hedge says '2; hedge'), not by arriving
    // first: on a busy machine the hedge can reach the server before it.
    const url = fixture.server.route(path('hedge'), [{ status: 200, delayMs: 3_000 }, 200], 'attempt');
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: { hedge: { delayMs: 50 }, attemptHeader: true },
      calls: [{ url }],
    });
    const [call] = seen.calls;
    expect(call).toMatchObject({ ok: true, status: 200, retryState: { attempts: 2, hedges: 1, hedgeWon: true } });
    expect(call!.elapsedMs).toBeLessThan(1_500);
    const sent = fixture.server.requests(path('hedge'));
    expect(sent).toHaveLength(2);
    // The copy bypasses the browser's HTTP cache, which would otherwise hold it behind the first.
    expect(sent[1]!.headers['cache-control']).toBe('no-cache');
  });

  test('the breaker opens after 5 failed calls; the next calls get CircuitOpenError and send nothing', async () => {
    const url = fixture.server.route(path('outage'), [503]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: {
        retries: 0,
        budget: false,
        breaker: { volumeThreshold: 5, errorThresholdPercentage: 50, resetTimeout: 10_000 },
      },
      calls: Array.from({ length: 7 }, () => ({ url })),
    });
    expect(seen.calls.map((c) => (c.ok ? c.status : c.error!.circuitOpen ? 'open' : c.error!.status))).toEqual([
      503,
      503,
      503,
      503,
      503,
      'open',
      'open',
    ]);
    const refused = seen.calls[5]!;
    expect(refused.error).toMatchObject({ name: 'CircuitOpenError', code: 'ERR_CIRCUIT_OPEN', isAxiosError: true });
    expect(refused.retryState).toMatchObject({ attempts: 0, stopReason: 'circuit-open' });
    expect(seen.breaker.map((b) => [b.call, b.state])).toEqual([[4, 'open']]);
    expect(fixture.server.requests(path('outage'))).toHaveLength(5);
  });

  test('plugin.close() ends a pending wait at once (stop reason aborted); later calls pass through untouched', async () => {
    const waiting = fixture.server.route(path('close-waiting'), [503, 200]);
    const later = fixture.server.route(path('close-later'), [503, 200]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: { baseDelayMs: 10_000, maxDelayMs: 10_000, jitter: 'none' },
      calls: [{ url: waiting, closeAfterRetryMs: 30 }, { url: later }],
    });
    const [ended, after] = seen.calls;
    expect(ended).toMatchObject({
      ok: false,
      error: { status: 503 },
      retryState: { attempts: 1, stopReason: 'aborted' },
    });
    expect(ended!.elapsedMs).toBeLessThan(2_000);
    expect(after).toMatchObject({ ok: false, error: { status: 503 } });
    expect(after!.retryState).toBeUndefined();
    expect(fixture.server.requests(path('close-waiting'))).toHaveLength(1);
    expect(fixture.server.requests(path('close-later'))).toHaveLength(1);
  });
});
