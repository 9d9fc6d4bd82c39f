/**
 * Validation messages by build (docs/errors.md): a browser app's production bundle throws the field,
 * a code and the code's docs link; its development bundle and the Node build (run with
 * NODE_ENV=production, as servers are) throw the full words. Every code the sources throw has its
 * entry in docs/errors.md.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { build } from 'esbuild';
import { MESSAGES } from '../../lib/policy/messages';

const root = join(__dirname, '../..');

/** What each wrong option throws, by the app's build. */
const WRONG = [{ retries: -1 }, { jitter: 'fast' }, { budget: { ratio: 10 } }, { retrise: 3 }];

const FULL = [
  'TypeError: axios-resilience: retries must be a whole number >= 0, got -1',
  `TypeError: axios-resilience: jitter must be one of "full", "equal", "decorrelated", "none", got "fast"`,
  'TypeError: axios-resilience: budget.ratio must be a share from 0 to 1 (0.1 is 10 %), got 10',
  'TypeError: axios-resilience: retrise is not a known option; did you mean retries?',
];

/** A bundle of the browser build made with `define`, and `app`, its exports, in a realm without `process`. */
async function browserApp(nodeEnv: 'production' | 'development', contents: string) {
  const { swapPlugin } = (await import(join(root, 'bench/browser-parts.mjs'))) as {
    swapPlugin(): import('esbuild').Plugin;
  };
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'js' },
    bundle: true,
    minify: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    globalName: 'app',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': JSON.stringify(nodeEnv) },
    plugins: [swapPlugin()],
  });
  const text = result.outputFiles[0]!.text;
  // A realm without `process`: the bundler's define is all there is.
  const context = vm.createContext({ console, URL, AbortController, setTimeout, clearTimeout });
  vm.runInContext(text, context);
  return { text, context };
}

/** The messages `retryPlugin()` throws for WRONG in a bundle of the browser build made with `define`. */
async function browserMessages(nodeEnv: 'production' | 'development'): Promise<{ messages: string[]; text: string }> {
  const { text, context } = await browserApp(nodeEnv, `export { retryPlugin } from './lib/index.ts';`);
  // Parsed inside the realm: an object of this realm is no plain object to the plugin's realm.
  context.WRONG = JSON.stringify(WRONG);
  const messages = vm.runInContext(
    `JSON.parse(WRONG).map((options) => { try { app.retryPlugin(options); return 'none'; } catch (e) { return e.name + ': ' + e.message; } })`,
    context,
  ) as string[];
  return { messages, text };
}

/** Each of `words` is in the development bundle's text and not in the production one's. */
function expectWordsOnlyIn(development: string, production: string, words: readonly string[]): void {
  for (const word of words) {
    expect(development).toContain(word);
    expect(production).not.toContain(word);
  }
}

test('a production browser bundle throws the field, the code and its docs link, and carries none of the words', async () => {
  const { messages, text } = await browserMessages('production');
  expect(messages).toEqual([
    'TypeError: axios-resilience: retries E3: see axios-resilience/docs/errors.md#E3',
    'TypeError: axios-resilience: jitter E8: see axios-resilience/docs/errors.md#E8',
    'TypeError: axios-resilience: budget.ratio E31: see axios-resilience/docs/errors.md#E31',
    'TypeError: axios-resilience: retrise E1: see axios-resilience/docs/errors.md#E1',
  ]);
  expect(text).not.toContain('must be a whole number');
  expect(text).not.toContain('is not a known option');
  expect(text).not.toContain('retryCondition'); // another library's name, which only a message mentions
});

/**
 * The options the capability entries bring (breaker, chaos, hedging, the rate limiter, the header
 * dialects) are checked by code that only such an app carries: its words go too, those a message
 * takes from a table (what to use instead of an opossum option) or builds from parts (what a chaos
 * fault may match) as much as the rest.
 */
test('a production browser bundle with every capability carries none of their words either', async () => {
  const entry = `export { retryPlugin } from './lib/index.ts';
    export { breaker } from './lib/browser/breaker.ts';
    export { chaos } from './lib/browser/fault-injection.ts';
    export { hedging } from './lib/browser/hedging.ts';
    export { rateLimiting } from './lib/browser/rate-limiting.ts';
    export { rateLimitHeaders } from './lib/browser/rate-limit-headers.ts';`;
  const wrong = `[
    { breaker: app.breaker({ cache: true }) },
    { chaos: app.chaos({ faults: [{ rate: 1, status: 503, match: { origin: 'api.example.com' } }] }) },
    { hedge: app.hedging({ delayMs: 'p75' }) },
    { rateLimit: app.rateLimiting({ shared: 'redis' }) },
  ].map((options) => { try { app.retryPlugin(options); return 'none'; } catch (e) { return e.name + ': ' + e.message; } })`;
  const production = await browserApp('production', entry);
  expect(vm.runInContext(wrong, production.context)).toEqual([
    'TypeError: axios-resilience: breaker.cache E64: see axios-resilience/docs/errors.md#E64',
    'TypeError: axios-resilience: chaos.faults[0].match.origin E47: see axios-resilience/docs/errors.md#E47',
    'TypeError: axios-resilience: hedge.delayMs E40: see axios-resilience/docs/errors.md#E40',
    'TypeError: axios-resilience: rateLimit.shared E43: see axios-resilience/docs/errors.md#E43',
  ]);
  const development = await browserApp('development', entry);
  const full = [
    'TypeError: axios-resilience: breaker.cache cannot be set here; use a caching layer such as axios-cache-interceptor',
    `TypeError: axios-resilience: chaos.faults[0].match.origin must be an absolute origin ('https://api.example.com') or a list of them, got "api.example.com"`,
    'TypeError: axios-resilience: hedge.delayMs must be ms (0 to 2147483647) or "p50", "p90", "p95", "p99", got "p75"',
    'TypeError: axios-resilience: rateLimit.shared must be a RateLimitStore (e.g. redisRateLimitStore(client)), got the string "redis"',
  ];
  expect(vm.runInContext(wrong, development.context)).toEqual(full);
  expectWordsOnlyIn(development.text, production.text, [
    'a caching layer such as axios-cache-interceptor',
    'a concurrency limiter in front of axios',
    'snapshots stay off',
    'an absolute origin',
    "a method name ('POST')",
    'must be a RateLimitStore',
    'must be a BreakerSync',
  ]);
});

test('a development browser bundle throws the full words', async () => {
  expect((await browserMessages('development')).messages).toEqual(FULL);
});

test('the Node build keeps the full words under NODE_ENV=production', () => {
  const out = execFileSync(process.execPath, [join(__dirname, 'generate-entry.mjs'), 'index'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const { cjs } = JSON.parse(out) as { cjs: string };
  expect(cjs).not.toContain('process.env.NODE_ENV');
  // Written inside the repository so that `require('axios')` resolves from node_modules.
  const file = join(root, `.messages-${process.pid}.cjs`);
  writeFileSync(file, cjs);
  try {
    const script = `
      const { retryPlugin } = require(${JSON.stringify(file)});
      const wrong = ${JSON.stringify(WRONG)};
      console.log(JSON.stringify(wrong.map((o) => { try { retryPlugin(o); return 'none'; } catch (e) { return e.name + ': ' + e.message; } })));`;
    const printed = execFileSync(process.execPath, ['-e', script], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production' },
    });
    expect(JSON.parse(printed)).toEqual(FULL);
  } finally {
    rmSync(file, { force: true });
  }
});

test('every code thrown in lib/ has its words and its entry in docs/errors.md, and every entry a code', () => {
  const thrown = new Set<string>();
  const dir = join(root, 'lib/policy');
  for (const name of readdirSync(dir)) {
    for (const match of readFileSync(join(dir, name), 'utf8').matchAll(/'(E\d+)'/g)) thrown.add(match[1]!);
  }
  const documented = new Set(
    [...readFileSync(join(root, 'docs/errors.md'), 'utf8').matchAll(/<a id="(E\d+)">/g)].map((m) => m[1]!),
  );
  const byNumber = (a: string, b: string) => Number(a.slice(1)) - Number(b.slice(1));
  expect([...documented].sort(byNumber)).toEqual([...thrown].sort(byNumber));
  expect(Object.keys(MESSAGES).sort(byNumber)).toEqual([...thrown].sort(byNumber));
});

/**
 * What a user's function returns during a call (delay(), body(), a key) and an install that cannot
 * work are checked through the same codes: a production browser bundle carries none of their words.
 */
test('a production browser bundle throws a code for a wrong install() and carries no words of the call-time checks', async () => {
  const entry = `export { retryPlugin } from './lib/index.ts';`;
  const wrongInstall = `(() => { try { app.retryPlugin().install({}); return 'none'; } catch (e) { return e.name + ': ' + e.message; } })()`;
  const production = await browserApp('production', entry);
  expect(vm.runInContext(wrongInstall, production.context)).toBe(
    'TypeError: axios-resilience: install() E68: see axios-resilience/docs/errors.md#E68',
  );
  const development = await browserApp('development', entry);
  expect(vm.runInContext(wrongInstall, development.context)).toBe(
    'TypeError: axios-resilience: install() needs axios or an axios.create() instance, got an object',
  );
  expectWordsOnlyIn(development.text, production.text, [
    'must return a number of ms',
    'must return a request body',
    'must return a non-empty string',
    'needs axios or an axios.create() instance',
    'a closed plugin retries nothing',
    'already has a different retry plugin installed',
  ]);
});
