/**
 * The rate limiter in Chromium, on axios's two browser adapters: a 429's Retry-After pauses the
 * origin, and its next calls are paced while the limiter is on (no Node timers needed).
 */
import { runInPage } from './browser';
import { pageFixture } from './page-fixture';

const fixture = pageFixture('app');

describe.each(['xhr', 'fetch'] as const)('in Chromium, over the %s adapter', (adapter) => {
  test("a 429's retry-after-ms pauses the origin; its next call is paced, and nothing fails", async () => {
    const throttled = fixture.server.route(`/api/${adapter}/limited`, [
      { status: 429, headers: { 'retry-after-ms': '300', 'retry-after': '30' } },
      200,
    ]);
    const next = fixture.server.route(`/api/${adapter}/next`, [200]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: {},
      recordAttempts: true,
      calls: [{ url: throttled }, { url: next }],
    });
    expect(seen.calls.map((c) => c.ok)).toEqual([true, true]);
    expect(seen.retries.map((r) => [r.reason, r.delaySource])).toEqual([['rate-limited', 'retry-after']]);
    const [first, retry] = fixture.server.requests(`/api/${adapter}/limited`);
    const [after] = fixture.server.requests(`/api/${adapter}/next`);
    // retry-after-ms, not Retry-After's 30 s: the retry went out after the 300 ms pause.
    expect(retry!.at - first!.at).toBeGreaterThanOrEqual(290);
    expect(retry!.at - first!.at).toBeLessThan(5000);
    expect(after!.at).toBeGreaterThan(retry!.at);
    // The limiter was on (at its starting 20 calls a second): the next call waited its turn. Timed
    // by the page's clock as each attempt left its turn: arrival times at the server can bunch on a
    // busy machine (a late retry, an on-time next call), but a turn never comes early.
    const sent = (call: number, attempt: number) =>
      seen.attempts.find((a) => a.call === call && a.attempt === attempt)!;
    expect(seen.attempts.map((a) => [a.call, a.attempt])).toEqual([
      [0, 1],
      [0, 2],
      [1, 1],
    ]);
    expect(sent(1, 1).at - sent(0, 2).at).toBeGreaterThanOrEqual(40);
  });
});
