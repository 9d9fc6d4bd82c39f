// `node bench/size-what-if.mjs`: what the default plugin would weigh in a browser app without each
// of the defaults a lighter browser build could drop (issue 32's 8 kB question). It bundles the
// sources as the browser build does (bench/browser-parts.mjs's swaps, esbuild, minified, axios left
// out), then again with, cumulatively:
//   - no rate limiter: the registry (guards/rate-limiters.ts) is an empty class, so the limiter, its
//     rule, queue and quota resets are not reached (the engine's gate stays);
//   - no breaker: the registry (guards/breaker.ts) is an empty class, so the light circuit and its
//     rotation are not reached (the engine's breaker gate and the guard's failure rule stay);
//   - no validation messages: every `fail(...)` and `unknownName(...)` call in the option
//     resolvers is dropped with its message (the checks' conditions stay).
// These are measurements, not builds that run: each variant only shows what its code weighs.
import { Buffer } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';
import { swapPlugin } from './browser-parts.mjs';
import { sizesOf } from './browser-size.mjs';

const APP = "import { retryPlugin } from './lib/index.ts'; retryPlugin().install(globalThis.http);";

const EMPTY_REGISTRY = (name) => ({ file: new RegExp(`lib/guards/${name}\\.ts$`), stub: name });
const STUBS = {
  'rate-limiters': 'export class RateLimiters {}',
  breaker: "export { countFailure, Guard } from './breaker-guard'; export class BreakerRegistry {}",
};
const RESOLVERS =
  /lib\/(policy\/(options|guard-options|key-options|table-options|validate|hedge-options)|plugin\/(install|parts))\.ts$/;

/** Drops `fail(...)` / `unknownName(...)` calls (and so their messages) from a resolver's source. */
function withoutMessages(source) {
  return source
    .replace(/(?<![\w.])(fail|unknownName)\(/g, '(0)&&$1(')
    .replace(/export function \(0\)&&(\w+)\(/g, 'export function $1(');
}

function variant({ stubs, messages }) {
  return {
    name: 'what-if',
    setup(b) {
      b.onLoad({ filter: /lib\/.*\.ts$/ }, async (args) => {
        const stub = stubs.find(({ file }) => file.test(args.path));
        if (stub !== undefined) return { contents: STUBS[stub.stub], loader: 'ts' };
        if (!messages && RESOLVERS.test(args.path)) {
          return { contents: withoutMessages(await readFile(args.path, 'utf8')), loader: 'ts' };
        }
        return undefined;
      });
    },
  };
}

async function weigh(options) {
  const result = await build({
    stdin: { contents: APP, resolveDir: process.cwd(), sourcefile: 'app.js', loader: 'js' },
    bundle: true,
    minify: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    external: ['axios'],
    logLevel: 'silent',
    plugins: [swapPlugin(), variant(options)],
  });
  return sizesOf(Buffer.from(result.outputFiles[0].text));
}

const rows = [
  ['the default plugin', { stubs: [], messages: true }],
  ['without the rate limiter', { stubs: [EMPTY_REGISTRY('rate-limiters')], messages: true }],
  [
    '… and without the breaker',
    { stubs: [EMPTY_REGISTRY('rate-limiters'), EMPTY_REGISTRY('breaker')], messages: true },
  ],
  [
    '… and without validation messages',
    { stubs: [EMPTY_REGISTRY('rate-limiters'), EMPTY_REGISTRY('breaker')], messages: false },
  ],
];
const kB = (bytes) => (bytes / 1000).toFixed(1);
console.log('| the plugin in a browser bundle (axios excluded) | minified | gzip | brotli | brotli saved |');
console.log('| --- | ---: | ---: | ---: | ---: |');
let first;
for (const [label, options] of rows) {
  const size = await weigh(options);
  first ??= size;
  console.log(
    `| ${label} | ${kB(size.min)} kB | ${kB(size.gzip)} kB | ${kB(size.brotli)} kB | ${kB(first.brotli - size.brotli)} kB |`,
  );
}
