/**
 * Cross-origin calls as Chromium makes them: the page on one origin, APIs on others (other ports).
 * `Idempotency-Key` and `X-Retry-Attempt` are not CORS-safelisted, so a call carrying them is
 * preflighted, and what the API answers to the preflight decides whether the call can work at all.
 */
import type { Browser } from 'playwright-core';
import { launch, openPage, runInPage } from './browser';
import type { WatchedPage } from './browser';
import { createProject } from './build';
import type { Project } from './build';
import { startServer } from './server';
import type { TestServer } from './server';

const PLUGIN_HEADERS = ['content-type', 'idempotency-key', 'x-retry-attempt'];

let project: Project;
let page: TestServer;
/**
 * Allows the plugin's headers, exposes Retry-After, caches preflights for 10 minutes; closes every
 * connection after its answer, so a reset is seen by the page and not re-sent by Chromium.
 */
let allowing: TestServer;
/** The same, but `Access-Control-Max-Age: 0`: every call is preflighted. */
let uncached: TestServer;
/** Allows the plugin's headers, exposes nothing, sends no Max-Age. */
let unexposed: TestServer;
/** Allows JSON bodies but not the Idempotency-Key: a CORS set-up that predates the plugin. */
let refusing: TestServer;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  project = await createProject();
  const built = await project.build('esbuild', 'app');
  page = await startServer({ staticDir: built.dir });
  const allowOrigin = page.origin;
  allowing = await startServer({
    cors: { allowOrigin, allowHeaders: PLUGIN_HEADERS, exposeHeaders: ['Retry-After'], maxAgeS: 600 },
    keepAlive: false,
  });
  uncached = await startServer({ cors: { allowOrigin, allowHeaders: PLUGIN_HEADERS, maxAgeS: 0 } });
  unexposed = await startServer({ cors: { allowOrigin, allowHeaders: PLUGIN_HEADERS } });
  refusing = await startServer({ cors: { allowOrigin, allowHeaders: ['content-type'] } });
  browser = await launch();
  watched = await openPage(browser, page.origin);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([page, allowing, uncached, unexposed, refusing].map((s) => s?.close()));
  await project?.remove();
});

afterEach(() => {
  expect(watched.problems.splice(0)).toEqual([]);
});

describe.each(['xhr', 'fetch'] as const)('cross-origin in Chromium, over the %s adapter', (adapter) => {
  const path = (name: string): string => `/api/${adapter}/${name}`;

  test('an API that allows the headers: a keyed POST is retried, one preflight covers every attempt (Max-Age)', async () => {
    const url = allowing.route(path('payments'), [503, 503, { commit: 201 }]);
    const seen = await runInPage(watched.page, {
      adapter,
      plugin: { baseDelayMs: 20, attemptHeader: true, idempotencyKey: { serverDedupes: true } },
      calls: [{ method: 'post', url, data: { amount: 4200 } }],
    });
    const [call] = seen.calls;
    expect(call).toMatchObject({ ok: true, status: 201, retryState: { attempts: 3 } });
    const key = call!.retryState!.idempotencyKey!;
    const sent = allowing.requests(path('payments'));
    expect(sent.map((r) => [r.headers['idempotency-key'], r.headers['x-retry-attempt']])).toEqual([
      [key, '1'],
      [key, '2'],
      [key, '3'],
    ]);
    expect(allowing.preflights(path('payments'))).toHaveLength(1);
    expect(allowing.payments(path('payments')).size).toBe(1);
  });

  test('once the API has answered a keyed call, a dropped connection there is retried like any network error', async () => {
    const first = allowing.route(path('verified-first'), [{ commit: 201 }]);
    const dropped = allowing.route(path('verified-dropped'), ['reset', 'reset', { commit: 201 }]);
    const seen = await runInPage(watched.page, {
      adapter,
      plugin: { baseDelayMs: 20, idempotencyKey: { serverDedupes: true } },
      calls: [
        { method: 'post', url: first, data: { amount: 1 } },
        { method: 'post', url: dropped, data: { amount: 2 } },
      ],
    });
    expect(seen.calls[1]).toMatchObject({ ok: true, status: 201, retryState: { attempts: 3 } });
    expect(seen.retries.filter((r) => r.call === 1).map((r) => r.reason)).toEqual(['ERR_NETWORK', 'ERR_NETWORK']);
    expect(allowing.requests(path('verified-dropped'))).toHaveLength(3);
  });

  test('Access-Control-Max-Age: 0 costs one preflight per attempt', async () => {
    const url = uncached.route(path('payments'), [503, 503, { commit: 201 }]);
    const seen = await runInPage(watched.page, {
      adapter,
      plugin: { baseDelayMs: 20, attemptHeader: true, idempotencyKey: { serverDedupes: true } },
      calls: [{ method: 'post', url, data: { amount: 4200 } }],
    });
    expect(seen.calls[0]).toMatchObject({ ok: true, status: 201, retryState: { attempts: 3 } });
    expect(uncached.requests(path('payments'))).toHaveLength(3);
    expect(uncached.preflights(path('payments'))).toHaveLength(3);
  });

  test('with no Access-Control-Max-Age, Chromium keeps the preflight for the attempts that follow within 5 s', async () => {
    const url = unexposed.route(path('payments'), [503, { commit: 201 }]);
    const seen = await runInPage(watched.page, {
      adapter,
      plugin: { baseDelayMs: 20, idempotencyKey: { serverDedupes: true } },
      calls: [{ method: 'post', url, data: { amount: 1 } }],
    });
    expect(seen.calls[0]).toMatchObject({ ok: true, status: 201, retryState: { attempts: 2 } });
    expect(unexposed.preflights(path('payments'))).toHaveLength(1);
  });

  test('a plain GET sends no preflight, and with Access-Control-Expose-Headers its Retry-After is honoured', async () => {
    const url = allowing.route(path('rate-limited'), [{ status: 429, headers: { 'retry-after': '2' } }, 200]);
    const seen = await runInPage(watched.page, {
      adapter,
      plugin: { baseDelayMs: 5, maxDelayMs: 250 },
      calls: [{ url }],
    });
    expect(seen.calls[0]).toMatchObject({ ok: true, status: 200, retryState: { attempts: 2, delaysMs: [250] } });
    expect(seen.retries.map((r) => r.delaySource)).toEqual(['retry-after']);
    expect(allowing.preflights(path('rate-limited'))).toHaveLength(0);
  });

  test('without Access-Control-Expose-Headers, Retry-After is invisible to the page: a bare 429, retried after its backoff as a 503 would be', async () => {
    const url = unexposed.route(path('rate-limited'), [{ status: 429, headers: { 'retry-after': '2' } }, 200]);
    const seen = await runInPage(watched.page, {
      adapter,
      plugin: { baseDelayMs: 5, maxDelayMs: 250 },
      calls: [{ url }],
    });
    expect(seen.calls[0]).toMatchObject({ ok: true, status: 200, retryState: { attempts: 2 } });
    // With no hint the page sees, the retry waits the backoff a 503 would get; one bare refusal engages
    // no pacing (issue 41).
    expect(seen.retries.map((r) => [r.reason, r.delaySource])).toEqual([['429', 'backoff']]);
    expect(seen.calls[0]!.retryState!.delaysMs[0]).toBeLessThan(5);
    // The server did send it; the browser kept it from the page.
    const [first, second] = unexposed.requests(path('rate-limited'));
    expect(second!.at - first!.at).toBeLessThan(240);
  });

  test('an error answer without Access-Control-Allow-Origin reaches the page as ERR_NETWORK, not as its status', async () => {
    // What a load balancer's own 503 page often looks like.
    const url = allowing.route(path('bare-503'), [{ status: 503, cors: false }, 200]);
    const seen = await runInPage(watched.page, { adapter, plugin: { baseDelayMs: 20 }, calls: [{ url }] });
    expect(seen.calls[0]).toMatchObject({ ok: true, status: 200, retryState: { attempts: 2 } });
    expect(seen.retries.map((r) => [r.reason, r.status])).toEqual([['ERR_NETWORK', undefined]]);
  });

  describe('an API whose preflight does not allow Idempotency-Key', () => {
    test('the POST never reaches it: every attempt dies at the preflight as ERR_NETWORK, and DevTools says why', async () => {
      const url = refusing.route(path('payments'), [{ commit: 201 }]);
      watched.network.splice(0);
      const seen = await runInPage(watched.page, {
        adapter,
        plugin: { baseDelayMs: 10 },
        calls: [{ method: 'post', url, data: { amount: 4200 } }],
      });
      const [call] = seen.calls;
      expect(call).toMatchObject({ ok: false, error: { code: 'ERR_NETWORK', isAxiosError: true, status: undefined } });
      expect(call!.retryState!.stopReason).toBeDefined();
      expect(seen.giveUps).toHaveLength(1);
      // A refused preflight is not cached: each attempt asks again, and no POST is ever sent.
      expect(refusing.preflights(path('payments'))).toHaveLength(call!.retryState!.attempts);
      expect(refusing.requests(path('payments'))).toHaveLength(0);
      expect(refusing.payments(path('payments')).size).toBe(0);
      expect(watched.network.join('\n')).toMatch(
        /Request header field idempotency-key is not allowed by Access-Control-Allow-Headers/,
      );
    });

    test('the refusal is not retried more than once: it fails in one backoff wait, not after every retry', async () => {
      const url = refusing.route(path('payments-once'), [{ commit: 201 }]);
      const seen = await runInPage(watched.page, {
        adapter,
        plugin: { baseDelayMs: 10, idempotencyKey: { serverDedupes: true } },
        calls: [{ method: 'post', url, data: { amount: 4200 } }],
      });
      const [call] = seen.calls;
      expect(call).toMatchObject({ ok: false, error: { code: 'ERR_NETWORK' } });
      expect(call!.retryState).toMatchObject({ stopReason: 'cors-suspected' });
      expect(call!.retryState!.attempts).toBe(2);
      expect(refusing.preflights(path('payments-once')).length).toBeLessThanOrEqual(2);
    });

    test('to an API not declared to dedupe, the suspected refusal of a POST is not retried at all, and says why', async () => {
      const url = refusing.route(path('payments-undeclared'), [{ commit: 201 }]);
      const seen = await runInPage(watched.page, {
        adapter,
        plugin: { baseDelayMs: 10 },
        calls: [{ method: 'post', url, data: { amount: 4200 } }],
      });
      const [call] = seen.calls;
      expect(call).toMatchObject({ ok: false, error: { code: 'ERR_NETWORK' } });
      expect(call!.retryState).toMatchObject({ stopReason: 'cors-suspected', attempts: 1 });
      expect(refusing.requests(path('payments-undeclared'))).toHaveLength(0);
    });

    test("the refusals do not open the origin's breaker: a GET that needs no preflight still goes through", async () => {
      const refused = refusing.route(path('orders'), [{ commit: 201 }]);
      const health = refusing.route(path('health'), [200]);
      const seen = await runInPage(watched.page, {
        adapter,
        plugin: { baseDelayMs: 5, breaker: { volumeThreshold: 5, errorThresholdPercentage: 50 } },
        calls: [
          ...Array.from({ length: 6 }, () => ({ method: 'post', url: refused, data: { amount: 1 } })),
          { url: health },
        ],
      });
      expect(seen.breaker).toEqual([]);
      expect(seen.calls[6]).toMatchObject({ ok: true, status: 200 });
      expect(refusing.requests(path('health'))).toHaveLength(1);
    });

    test('the same call with idempotencyKey: false goes through (the API then gets no key)', async () => {
      const url = refusing.route(path('payments-unkeyed'), [201]);
      const seen = await runInPage(watched.page, {
        adapter,
        plugin: { baseDelayMs: 10 },
        calls: [{ method: 'post', url, data: { amount: 4200 }, retry: { idempotencyKey: false } }],
      });
      expect(seen.calls[0]).toMatchObject({ ok: true, status: 201 });
      const sent = refusing.requests(path('payments-unkeyed'));
      expect(sent).toHaveLength(1);
      expect(sent[0]!.headers['idempotency-key']).toBeUndefined();
    });
  });
});
