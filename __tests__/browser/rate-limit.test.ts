/**
 * The rate limiter in Chromium, on axios's two browser adapters: a 429's Retry-After pauses the
 * origin, and its next calls are paced while the limiter is on (no Node timers needed).
 */
import type { Browser } from 'playwright-core';
import { launch, openPage, runInPage } from './browser';
import type { WatchedPage } from './browser';
import { createProject } from './build';
import type { Project } from './build';
import { startServer } from './server';
import type { TestServer } from './server';

let project: Project;
let server: TestServer;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  project = await createProject();
  const built = await project.build('esbuild', 'app');
  server = await startServer({ staticDir: built.dir });
  browser = await launch();
  watched = await openPage(browser, server.origin);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await project?.remove();
});

afterEach(() => {
  // Chromium's own "Failed to load resource: 429" lines are expected; the app's are not.
  expect(watched.problems.splice(0)).toEqual([]);
});

describe.each(['xhr', 'fetch'] as const)('in Chromium, over the %s adapter', (adapter) => {
  test("a 429's retry-after-ms pauses the origin; its next call is paced, and nothing fails", async () => {
    const throttled = server.route(`/api/${adapter}/limited`, [
      { status: 429, headers: { 'retry-after-ms': '300', 'retry-after': '30' } },
      200,
    ]);
    const next = server.route(`/api/${adapter}/next`, [200]);
    const seen = await runInPage(watched.page, {
      adapter,
      plugin: {},
      calls: [{ url: throttled }, { url: next }],
    });
    expect(seen.calls.map((c) => c.ok)).toEqual([true, true]);
    expect(seen.retries.map((r) => [r.reason, r.delaySource])).toEqual([['rate-limited', 'retry-after']]);
    const [first, retry] = server.requests(`/api/${adapter}/limited`);
    const [after] = server.requests(`/api/${adapter}/next`);
    // retry-after-ms, not Retry-After's 30 s: the retry went out after the 300 ms pause.
    expect(retry!.at - first!.at).toBeGreaterThanOrEqual(290);
    expect(retry!.at - first!.at).toBeLessThan(5000);
    // The limiter was on (at its starting 20 calls a second): the next call waited its turn.
    expect(after!.at - retry!.at).toBeGreaterThanOrEqual(40);
  });
});
