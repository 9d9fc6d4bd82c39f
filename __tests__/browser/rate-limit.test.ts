/**
 * Rate limits in Chromium, on axios's two browser adapters: a 429's short retry-after-ms is waited by
 * the refused call, with or without a limiter. The browser build has no cross-call limiter by default;
 * given `rateLimiting()` from axios-resilience/rate-limiting, its route's next calls are paced while
 * the limiter is on (no Node timers needed), and another route's calls are not its concern.
 */
import { runInPage } from './browser';
import { pageFixture } from './page-fixture';

const fixture = pageFixture('app');

describe.each(['xhr', 'fetch'] as const)('in Chromium, over the %s adapter', (adapter) => {
  test("the default plugin: a 429's retry-after-ms is waited by its call; no limiter paces the route after it", async () => {
    const throttled = fixture.server.route(`/api/${adapter}/default-limited`, [
      { status: 429, headers: { 'retry-after-ms': '300', 'retry-after': '30' } },
      200,
    ]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: {},
      recordAttempts: true,
      calls: [{ url: throttled }, { url: throttled }, { url: throttled }],
    });
    expect(seen.calls.map((c) => c.ok)).toEqual([true, true, true]);
    // Retried for its status: no limiter paced it (a limiter's retry says 'rate-limited').
    expect(seen.retries.map((r) => [r.call, r.reason, r.delaySource])).toEqual([[0, '429', 'retry-after']]);
    const [first, retry] = fixture.server.requests(`/api/${adapter}/default-limited`);
    expect(retry!.at - first!.at).toBeGreaterThanOrEqual(290);
    expect(retry!.at - first!.at).toBeLessThan(5000);
    // No cross-call limiter: plugin.limiter(url) has none for the route after the 429, and the
    // route's next calls are sent as they come (each retryState shows no wait at a gate).
    expect(seen.calls.map((c) => c.limiter)).toEqual([undefined, undefined, undefined]);
    expect(seen.calls.map((c) => c.retryState?.delaysMs)).toEqual([[300], [], []]);
    expect(fixture.server.requests(`/api/${adapter}/default-limited`)).toHaveLength(4);
  });

  test("with rateLimiting(): a 429's retry-after-ms is waited by its call; the route's next call is paced, and nothing fails", async () => {
    const throttled = fixture.server.route(`/api/${adapter}/limited`, [
      { status: 429, headers: { 'retry-after-ms': '300', 'retry-after': '30' } },
      200,
    ]);
    const other = fixture.server.route(`/api/${adapter}/other`, [200]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: {},
      rateLimiting: true,
      recordAttempts: true,
      calls: [{ url: throttled }, { url: throttled }, { url: throttled }, { url: other }],
    });
    expect(seen.calls.map((c) => c.ok)).toEqual([true, true, true, true]);
    expect(seen.retries.map((r) => [r.call, r.reason, r.delaySource])).toEqual([[0, 'rate-limited', 'retry-after']]);
    const [first, retry, next] = fixture.server.requests(`/api/${adapter}/limited`);
    // retry-after-ms, not Retry-After's 30 s: the retry went out after the 300 ms wait.
    expect(retry!.at - first!.at).toBeGreaterThanOrEqual(290);
    expect(retry!.at - first!.at).toBeLessThan(5000);
    expect(next!.at).toBeGreaterThan(retry!.at);
    expect(fixture.server.requests(`/api/${adapter}/other`)).toHaveLength(1);
    expect(seen.calls[2]!.limiter).toMatchObject({ state: 'on', scope: `GET /api/${adapter}/limited` });
    // The route's limiter was on (at its starting 20 calls a second, which lets one call use the turn
    // just missed): the second call after the retry waited its turn, 50 ms after the retry's. Timed
    // by the page's clock as each attempt left its turn: arrival times at the server can bunch on a
    // busy machine, but a turn never comes early.
    const sent = (call: number, attempt: number) =>
      seen.attempts.find((a) => a.call === call && a.attempt === attempt)!;
    expect(seen.attempts.map((a) => [a.call, a.attempt])).toEqual([
      [0, 1],
      [0, 2],
      [1, 1],
      [2, 1],
      [3, 1],
    ]);
    expect(sent(2, 1).at - sent(0, 2).at).toBeGreaterThanOrEqual(40);
  });
});
