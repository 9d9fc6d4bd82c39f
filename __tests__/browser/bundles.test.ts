/**
 * Bundles a user builds with nothing configured: `vite build` (Vite 8, defaults) and `esbuild
 * --bundle --platform=browser` of a small app that imports `axios` and `axios-resilience` by name.
 * Both must build without warnings, pull in no Node built-in or stand-in for one, and work in
 * Chromium on both adapters.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launch, openPage, runInPage } from './browser';
import type { WatchedPage } from './browser';
import { createProject } from './build';
import type { Built, Bundler, Project } from './build';
import { startServer } from './server';
import type { TestServer } from './server';

const BUNDLERS: Bundler[] = ['vite', 'esbuild'];

let project: Project;
let browser: Browser;
const builds = new Map<Bundler, { app: Built; bare: Built; server: TestServer; watched: WatchedPage }>();

async function bundleText(dir: string): Promise<string> {
  const files = await readdir(dir, { recursive: true });
  const js = files.filter((f) => f.endsWith('.js'));
  return (await Promise.all(js.map((f) => readFile(join(dir, f), 'utf8')))).join('\n');
}

beforeAll(async () => {
  project = await createProject();
  browser = await launch();
  for (const bundler of BUNDLERS) {
    const app = await project.build(bundler, 'app');
    const bare = await project.build(bundler, 'bare');
    const server = await startServer({ staticDir: app.dir, keepAlive: false });
    builds.set(bundler, { app, bare, server, watched: await openPage(browser, server.origin) });
  }
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([...builds.values()].map((b) => b.server.close()));
  await project?.remove();
});

afterEach(() => {
  for (const { watched } of builds.values()) expect(watched.problems.splice(0)).toEqual([]);
});

describe.each(BUNDLERS)('%s, default settings', (bundler) => {
  const get = (): NonNullable<ReturnType<typeof builds.get>> => builds.get(bundler)!;

  test('builds without a warning, with no Node built-in and no stand-in for one', async () => {
    const { app, bare } = get();
    expect(app.output).not.toMatch(/warn|\(!\)|externalized/i);
    const code = await bundleText(app.dir);
    // Vite replaces a Node built-in it cannot resolve with a module that throws on first use.
    expect(code).not.toContain('externalized for browser compatibility');
    expect(code).not.toMatch(/\bfrom\s*["']node:|\brequire\(["'](events|crypto|http|https|url|util)["']\)/);
    // The browser build's breaker came instead of opossum and the events package (no EventEmitter
    // with its listener limit), and neither uuid nor Node stream recording came along.
    expect(code).not.toContain('maxListeners');
    expect(code).not.toContain('getBuiltinModule');
    expect(code).toContain('EOPENBREAKER');
    expect(app.sizes.raw).toBeGreaterThan(bare.sizes.raw);
  });

  test('the package resolves to its browser build: a GET answered 503 then 200 succeeds on its second attempt', async () => {
    const { app, server, watched } = get();
    const code = await bundleText(app.dir);
    // The browser entry's own breaker and key generator, not opossum's or uuid's.
    expect(code).not.toMatch(/Semaphore locked|coalesceCache|uuidjs/);
    const url = server.route('/api/browser-build/flaky', [503, 200]);
    const seen = await runInPage(watched.page, { adapter: 'fetch', plugin: { baseDelayMs: 20 }, calls: [{ url }] });
    expect(seen.calls[0]).toMatchObject({ ok: true, status: 200, retryState: { attempts: 2 } });
    expect(seen.retries).toMatchObject([{ attempt: 1, status: 503, reason: '503', delaySource: 'backoff' }]);
    expect(server.requests('/api/browser-build/flaky')).toHaveLength(2);
  });

  test('hedge, chaos, rateLimit, rateLimitHeaders or breaker given without its subpath is a TypeError that names the import; false is fine; a wrong value throws its code', async () => {
    const { watched } = get();
    const messages = await watched.page.evaluate(async () => {
      const lib = (window as unknown as { axrLib: { retryPlugin(o: unknown): unknown } }).axrLib;
      const thrown = (options: unknown): string => {
        try {
          lib.retryPlugin(options);
          return 'no error';
        } catch (error) {
          return `${(error as Error).name}: ${(error as Error).message}`;
        }
      };
      return [
        thrown({ hedge: { delayMs: 50 } }),
        thrown({ chaos: { faults: [{ rate: 1, status: 503 }] } }),
        thrown({ rateLimit: {} }),
        thrown({ rateLimit: { maxQueue: 100 } }),
        thrown({ rateLimit: false }),
        thrown({ rateLimitHeaders: { dialects: 'all' } }),
        thrown({ rateLimitHeaders: false }),
        thrown({ breaker: { volumeThreshold: 5 } }),
        thrown({ breaker: false }),
        thrown({ retries: -1 }),
      ];
    });
    const rateLimitError =
      "TypeError: axios-resilience: rateLimit needs axios-resilience/rate-limiting in a browser build: import { rateLimiting } from 'axios-resilience/rate-limiting' and pass rateLimit: rateLimiting({ ... })";
    expect(messages).toEqual([
      "TypeError: axios-resilience: hedge needs axios-resilience/hedging in a browser build: import { hedging } from 'axios-resilience/hedging' and pass hedge: hedging({ ... })",
      "TypeError: axios-resilience: chaos needs axios-resilience/chaos in a browser build: import { chaos } from 'axios-resilience/chaos' and pass chaos: chaos({ ... })",
      rateLimitError,
      rateLimitError,
      'no error',
      "TypeError: axios-resilience: rateLimitHeaders needs axios-resilience/rate-limit-headers in a browser build: import { rateLimitHeaders } from 'axios-resilience/rate-limit-headers' and pass rateLimitHeaders: rateLimitHeaders()",
      'no error',
      "TypeError: axios-resilience: breaker needs axios-resilience/breaker in a browser build: import { breaker } from 'axios-resilience/breaker' and pass breaker: breaker({ ... })",
      'no error',
      // Both bundlers build for production with no configuration: the code and its docs link, not the words.
      'TypeError: axios-resilience: retries E3: see axios-resilience/docs/errors.md#E3',
    ]);
  });

  test('rateLimitHeaders() and rateLimiting() from the built subpaths: a spent X-RateLimit quota stops the call as rate-limited, in the plugin given them only', async () => {
    const { server, watched } = get();
    const spent = { status: 429, headers: { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '100' } };
    const before = server.route('/api/browser-build/quota-before', [spent]);
    const read = server.route('/api/browser-build/quota-read', [spent]);
    const after = server.route('/api/browser-build/quota-after', [spent]);
    // One page, three plugins: nothing is set for the page, so the one made after still reads no dialect.
    const plain = await runInPage(watched.page, { adapter: 'fetch', plugin: { retries: 0 }, calls: [{ url: before }] });
    const given = await runInPage(watched.page, {
      adapter: 'fetch',
      rateLimitHeaders: true,
      rateLimiting: true,
      plugin: { retries: 0 },
      calls: [{ url: read }],
    });
    const later = await runInPage(watched.page, { adapter: 'fetch', plugin: { retries: 0 }, calls: [{ url: after }] });
    expect([plain.giveUps, given.giveUps, later.giveUps]).toEqual([
      [{ call: 0, stopReason: 'retries-exhausted' }],
      [{ call: 0, stopReason: 'rate-limited' }],
      [{ call: 0, stopReason: 'retries-exhausted' }],
    ]);
  });

  describe.each(['xhr', 'fetch'] as const)('in Chromium, over the %s adapter', (adapter) => {
    const path = (name: string): string => `/api/${adapter}/${name}`;

    test('a keyed POST survives a 503 and a reset after commit: one key, one payment', async () => {
      const { server, watched } = get();
      const url = server.route(path('payments'), [503, 'commit-reset', { commit: 201 }]);
      const seen = await runInPage(watched.page, {
        adapter,
        plugin: { baseDelayMs: 20, idempotencyKey: { serverDedupes: true } },
        calls: [{ method: 'post', url, data: { amount: 4200 } }],
      });
      const [call] = seen.calls;
      expect(call).toMatchObject({ ok: true, status: 200, replayed: true, retryState: { attempts: 3 } });
      const key = call!.retryState!.idempotencyKey;
      expect(server.requests(path('payments')).map((r) => r.headers['idempotency-key'])).toEqual([key, key, key]);
      expect(server.payments(path('payments')).size).toBe(1);
    });

    test('the breaker opens and the refusal is a CircuitOpenError from the package', async () => {
      const { server, watched } = get();
      const url = server.route(path('outage'), [503]);
      const seen = await runInPage(watched.page, {
        adapter,
        plugin: { retries: 0, budget: false, breaker: { volumeThreshold: 5, resetTimeout: 10_000 } },
        calls: Array.from({ length: 6 }, () => ({ url })),
      });
      expect(seen.calls[5]!.error).toMatchObject({ circuitOpen: true, code: 'ERR_CIRCUIT_OPEN', isAxiosError: true });
      expect(server.requests(path('outage'))).toHaveLength(5);
    });
  });
});
