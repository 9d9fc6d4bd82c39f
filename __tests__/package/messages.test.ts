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

const root = join(__dirname, '../..');

/** What each wrong option throws, by the app's build. */
const WRONG = [{ retries: -1 }, { jitter: 'fast' }, { budget: { ratio: 10 } }, { retrise: 3 }];

const FULL = [
  'TypeError: axios-resilience: retries must be a whole number >= 0, got -1',
  `TypeError: axios-resilience: jitter must be one of "full", "equal", "decorrelated", "none", got "fast"`,
  'TypeError: axios-resilience: budget.ratio must be a share from 0 to 1 (0.1 is 10 %), got 10',
  'TypeError: axios-resilience: retrise is not a known option; did you mean retries?',
];

/** The messages `retryPlugin()` throws for WRONG in a bundle of the browser build made with `define`. */
async function browserMessages(nodeEnv: 'production' | 'development'): Promise<{ messages: string[]; text: string }> {
  const { swapPlugin } = (await import(join(root, 'bench/browser-parts.mjs'))) as {
    swapPlugin(): import('esbuild').Plugin;
  };
  const result = await build({
    stdin: { contents: `export { retryPlugin } from './lib/index.ts';`, resolveDir: root, loader: 'js' },
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
  // Parsed inside the realm: an object of this realm is no plain object to the plugin's realm.
  context.WRONG = JSON.stringify(WRONG);
  const messages = vm.runInContext(
    `JSON.parse(WRONG).map((options) => { try { app.retryPlugin(options); return 'none'; } catch (e) { return e.name + ': ' + e.message; } })`,
    context,
  ) as string[];
  return { messages, text };
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

test('every code thrown in lib/ has its entry in docs/errors.md, and every entry a code', () => {
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
});
