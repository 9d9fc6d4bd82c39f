/**
 * The browser build's graph (rollup.browser.mjs's swaps, applied by esbuild to the current sources):
 * what the default plugin leaves out, what each subpath brings back, and that both run in a realm
 * with the web platform's globals only, against a real server on 127.0.0.1.
 */
import { join } from 'node:path';
import vm from 'node:vm';
import { build } from 'esbuild';
import { startFaultServer } from '../../lib/testing';
import type { FaultServer, Step } from '../../lib/testing';

const root = join(__dirname, '../..');

interface Swaps {
  swapPlugin(): import('esbuild').Plugin;
}

/** Bundles `code` (imports of lib/ sources) as the browser build would, for a realm without Node; `inputs`: the files it carries. */
async function bundle(code: string): Promise<{ text: string; inputs: string[] }> {
  const { swapPlugin } = (await import(join(root, 'bench/browser-parts.mjs'))) as Swaps;
  const result = await build({
    stdin: { contents: code, resolveDir: root, sourcefile: 'app.js', loader: 'js' },
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    globalName: 'app',
    metafile: true,
    logLevel: 'silent',
    plugins: [swapPlugin()],
  });
  // The files with code in the output: an export nobody uses is parsed, then shaken out.
  const [output] = Object.values(result.metafile.outputs);
  const inputs = Object.entries(output!.inputs).filter(([, { bytesInOutput }]) => bytesInOutput > 0);
  return { text: result.outputFiles[0]!.text, inputs: inputs.map(([file]) => file) };
}

const EVERYTHING = `
  export { retryPlugin } from './lib/index.ts';
  export { hedging } from './lib/browser/hedging.ts';
  export { chaos } from './lib/browser/fault-injection.ts';
  export { rateLimitHeaders } from './lib/browser/rate-limit-headers.ts';
  export { rateLimiting } from './lib/browser/rate-limiting.ts';
  export { breaker } from './lib/browser/breaker.ts';
  export { default as axios } from 'axios';
`;

/** A realm with the web platform's globals only: no process, require, Buffer or module. */
function realm(): vm.Context {
  const globals: Record<string, unknown> = {
    ...{ fetch, Headers, Request, Response, AbortController, AbortSignal, URL, URLSearchParams },
    ...{ TextEncoder, TextDecoder, ReadableStream, Blob, FormData, crypto: globalThis.crypto, console },
    ...{ setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask },
  };
  const context = vm.createContext(globals);
  globals.self = context;
  return context;
}

let everything: string;
let server: FaultServer;
beforeAll(async () => {
  everything = (await bundle(EVERYTHING)).text;
}, 60_000);
afterEach(async () => {
  await server?.close();
});

/** Runs `body` (an async function body with `app` and `SERVER` in scope) in a fresh realm. */
async function inRealm<T>(routes: Record<string, Step[]>, body: string): Promise<T> {
  server = await startFaultServer({ routes });
  const context = realm();
  context.SERVER = server.url;
  vm.runInContext(everything, context);
  return (await vm.runInContext(`(async () => { ${body} })()`, context)) as T;
}

describe('the default plugin', () => {
  test('carries no breaker, opossum, events, uuid, hedging, fault injection, rate limiter, header dialects, Node stream recording, http-adapter form boundary, redirect accounting or fleet budget store', async () => {
    const { inputs } = await bundle(`import { retryPlugin } from './lib/index.ts'; self.p = retryPlugin;`);
    const carried = inputs.filter((file) =>
      /node_modules\/(opossum|events|uuid)\/|lib\/(engine\/(hedge|chaos|chaos-outcome|node-recording|node-form|redirects|rate-gate|breaker-gate)|policy\/(hedge-options|chaos-options|rate-limit-dialects|rate-limit-options|breaker-options)|guards\/(budget|store-health|rate-limiter|rate-limiters|rate-rule|turn-queue|breaker|breaker-guard|lite-circuit|emitter))\.ts$/.test(
        file,
      ),
    );
    expect(carried).toEqual([]);
    expect(inputs).toContain('lib/guards/local-budget.ts');
  });

  test('breaker() brings the light circuit and nothing of opossum', async () => {
    const { inputs } = await bundle(
      `import { retryPlugin } from './lib/index.ts'; import { breaker } from './lib/browser/breaker.ts'; self.p = retryPlugin({ breaker: breaker() });`,
    );
    expect(inputs).toEqual(expect.arrayContaining(['lib/guards/lite-circuit.ts', 'lib/guards/breaker.ts']));
    expect(inputs.filter((file) => /node_modules\/(opossum|events)\//.test(file))).toEqual([]);
  });

  test('a RetryBudget (the one class that can share a fleet store) brings the store code with it', async () => {
    const { inputs } = await bundle(
      `import { retryPlugin, RetryBudget } from './lib/index.ts'; self.p = retryPlugin({ budget: new RetryBudget() });`,
    );
    expect(inputs).toEqual(expect.arrayContaining(['lib/guards/budget.ts', 'lib/guards/store-health.ts']));
  });

  test('retries a 503 in a realm without Node, with a uuid v4 key from Web Crypto', async () => {
    const seen = await inRealm<{ status: number; attempts: number; key: string }>(
      { 'POST /pay': ['503', '201'] },
      `const plugin = app.retryPlugin({ baseDelayMs: 2, idempotencyKey: { serverDedupes: true } });
       const http = app.axios.create({ adapter: 'fetch' });
       plugin.install(http);
       const r = await http.post(SERVER + '/pay', { amount: 1 });
       await plugin.close();
       return { status: r.status, attempts: r.config.retryState.attempts, key: r.config.retryState.idempotencyKey };`,
    );
    expect(seen).toMatchObject({ status: 201, attempts: 2 });
    expect(seen.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual([seen.key, seen.key]);
  });

  test('sends every call with no breaker: 12 calls answered 503 all go out (a default breaker would open at the 10th), and plugin.breaker() has none', async () => {
    const seen = await inRealm<{ statuses: number[]; breaker: unknown }>(
      { 'GET /down': Array.from({ length: 12 }, () => '503' as const) },
      `const plugin = app.retryPlugin({ retries: 0 });
       const http = app.axios.create({ adapter: 'fetch' });
       plugin.install(http);
       const statuses = [];
       for (let i = 0; i < 12; i++) statuses.push(await http.get(SERVER + '/down').catch((e) => e.response.status));
       const breaker = plugin.breaker(SERVER);
       await plugin.close();
       return { statuses, breaker: breaker === undefined ? 'none' : 'some' };`,
    );
    expect(seen).toEqual({ statuses: Array.from({ length: 12 }, () => 503), breaker: 'none' });
    expect(server.requests).toHaveLength(12);
  });

  test('hedge, chaos and rateLimit without their subpaths are TypeErrors naming the import; chaos: false per request and rateLimit: false are fine', async () => {
    const messages = await inRealm<string[]>(
      { 'GET /r': ['200'] },
      `const thrown = (options) => { try { app.retryPlugin(options); return 'none'; } catch (e) { return e.constructor.name + ': ' + e.message; } };
       const plugin = app.retryPlugin();
       const http = app.axios.create({ adapter: 'fetch' });
       plugin.install(http);
       const ok = (await http.get(SERVER + '/r', { retry: { chaos: false } })).status;
       const perRequest = await http.get(SERVER + '/r', { retry: { hedge: { delayMs: 5 } } }).then(() => 'none', (e) => e.message);
       await plugin.close();
       return [
         thrown({ hedge: { delayMs: 50 } }),
         thrown({ chaos: { faults: [] } }),
         thrown({ rateLimit: {} }),
         thrown({ rateLimit: false }),
         thrown({ breaker: { volumeThreshold: 5 } }),
         thrown({ breaker: false }),
         String(ok),
         perRequest,
       ];`,
    );
    expect(messages).toEqual([
      "TypeError: axios-resilience: hedge needs axios-resilience/hedging in a browser build: import { hedging } from 'axios-resilience/hedging' and pass hedge: hedging({ ... })",
      "TypeError: axios-resilience: chaos needs axios-resilience/chaos in a browser build: import { chaos } from 'axios-resilience/chaos' and pass chaos: chaos({ ... })",
      "TypeError: axios-resilience: rateLimit needs axios-resilience/rate-limiting in a browser build: import { rateLimiting } from 'axios-resilience/rate-limiting' and pass rateLimit: rateLimiting({ ... })",
      'none',
      "TypeError: axios-resilience: breaker needs axios-resilience/breaker in a browser build: import { breaker } from 'axios-resilience/breaker' and pass breaker: breaker({ ... })",
      'none',
      '200',
      expect.stringMatching(/config\.retry\.hedge needs axios-resilience\/hedging in a browser build/),
    ]);
  });
});

describe('the subpaths bring their code', () => {
  test('breaker(): after 5 failed calls the circuit opens; the next call is a CircuitOpenError and sends nothing', async () => {
    const seen = await inRealm<{ outcomes: string[]; states: string[]; view: string }>(
      { 'GET /down': Array.from({ length: 5 }, () => '503' as const) },
      `const states = [];
       const plugin = app.retryPlugin({
         retries: 0,
         breaker: app.breaker({ volumeThreshold: 5, resetTimeout: 10000 }),
         onCircuitStateChange: ({ state }) => states.push(state),
       });
       const http = app.axios.create({ adapter: 'fetch' });
       plugin.install(http);
       const outcomes = [];
       for (let i = 0; i < 6; i++) {
         outcomes.push(await http.get(SERVER + '/down').then(() => 'ok', (e) => e.code === 'ERR_CIRCUIT_OPEN' ? 'open' : String(e.response.status)));
       }
       const view = plugin.breaker(SERVER).opened ? 'opened' : 'closed';
       await plugin.close();
       return { outcomes, states, view };`,
    );
    expect(seen).toEqual({ outcomes: ['503', '503', '503', '503', '503', 'open'], states: ['open'], view: 'opened' });
    expect(server.requests).toHaveLength(5);
  });

  test('hedging(): a slow first copy loses to the copy sent after 20 ms; a plain per-request hedge then works too', async () => {
    // Which copy is slow is decided where the copies are made, in the order the plugin sends them
    // (every first copy waits 2 s after its answer, until aborted), not by which socket reaches the
    // server first: on a loaded machine the hedge's request may arrive before the first copy's.
    const seen = await inRealm<Array<{ hedges: number; hedgeWon: boolean }>>(
      { 'GET /slow': ['200'] },
      `const fetchAdapter = app.axios.getAdapter('fetch');
       let sent = 0;
       const adapter = (config) => {
         const first = sent++ % 2 === 0;
         return fetchAdapter(config).then((response) => !first ? response : new Promise((resolve, reject) => {
           const timer = setTimeout(() => resolve(response), 2000);
           config.signal?.addEventListener('abort', () => { clearTimeout(timer); reject(new app.axios.CanceledError()); });
         }));
       };
       const plugin = app.retryPlugin({ hedge: app.hedging({ delayMs: 20 }) });
       const http = app.axios.create({ adapter });
       plugin.install(http);
       const a = await http.get(SERVER + '/slow');
       const b = await http.get(SERVER + '/slow', { retry: { hedge: { delayMs: 10 } } });
       await plugin.close();
       return [a, b].map((r) => ({ hedges: r.config.retryState.hedges, hedgeWon: r.config.retryState.hedgeWon }));`,
    );
    expect(seen).toEqual([
      { hedges: 1, hedgeWon: true },
      { hedges: 1, hedgeWon: true },
    ]);
  });

  test('chaos(): an injected 503 on every attempt, none reaching the server, counted in retryState.injected', async () => {
    const seen = await inRealm<{ status: number; injected: number; stopReason: string }>(
      { 'GET /r': ['200'] },
      `const plugin = app.retryPlugin({ retries: 2, baseDelayMs: 1, chaos: app.chaos({ faults: [{ rate: 1, status: 503 }] }) });
       const http = app.axios.create({ adapter: 'fetch' });
       plugin.install(http);
       const e = await http.get(SERVER + '/r').catch((e) => e);
       await plugin.close();
       return { status: e.response.status, injected: e.config.retryState.injected, stopReason: e.config.retryState.stopReason };`,
    );
    expect(seen).toEqual({ status: 503, injected: 3, stopReason: 'retries-exhausted' });
    expect(server.requests).toHaveLength(0);
  });

  test('rateLimiting(): the limiter comes with it; a 429 engages its route, which the default plugin leaves alone', async () => {
    const throttled = { status: 429, headers: { 'retry-after-ms': '20' } };
    const limiters = await inRealm<unknown[]>(
      { 'GET /a': [throttled, '200'], 'GET /b': [throttled, '200'] },
      `const call = async (options, path) => {
         const plugin = app.retryPlugin({ baseDelayMs: 1, ...options });
         const http = app.axios.create({ adapter: 'fetch' });
         plugin.install(http);
         const r = await http.get(SERVER + path);
         const limiter = plugin.limiter(SERVER + path);
         await plugin.close();
         return [r.status, r.config.retryState.delaysMs, limiter?.state];
       };
       return [await call({}, '/a'), await call({ rateLimit: app.rateLimiting({ maxQueue: 100 }) }, '/b')];`,
    );
    expect(limiters).toEqual([
      [200, [20], undefined],
      [200, [20], 'on'],
    ]);
  });

  test("rateLimitHeaders(): a spent X-RateLimit quota is the refused call's own wait (within maxDelayMs), for the plugin given it only; with rateLimiting() it holds the route and stops the call as rate-limited", async () => {
    const spent = { status: 429, headers: { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '100' } };
    const seen = await inRealm<unknown[]>(
      { 'GET /a': [spent, '200'], 'GET /b': [spent, '200'], 'GET /c': [spent], 'GET /d': [spent, '200'] },
      `const call = async (options, path) => {
         const plugin = app.retryPlugin({ retries: 1, baseDelayMs: 1, jitter: 'none', maxDelayMs: 30, ...options });
         const http = app.axios.create({ adapter: 'fetch' });
         plugin.install(http);
         const r = await http.get(SERVER + path).catch((e) => e);
         await plugin.close();
         return [r.config.retryState.stopReason ?? r.status, r.config.retryState.delaysMs];
       };
       const headers = app.rateLimitHeaders();
       return [
         await call({}, '/a'),
         await call({ rateLimitHeaders: headers }, '/b'),
         await call({ rateLimitHeaders: headers, rateLimit: app.rateLimiting() }, '/c'),
         await call({}, '/d'),
       ];`,
    );
    expect(seen).toEqual([
      [200, [1]],
      [200, [30]],
      ['rate-limited', []],
      [200, [1]],
    ]);
  });
});
