// The browser build (dist/browser/, the package's `browser` export condition): the same sources
// as the Node build, with the modules below swapped for the files that stand in for them in a
// browser, so what a browser never runs is not reachable from its entry (docs/guides/browser.md):
//
// - the breaker (its options, registry and a call's gate) → one stand-in that makes none unless the
//   `breaker` value brings it (`breaker()` from axios-resilience/breaker); what that brings has
//   opossum (and the `events` package it needs) swapped for lib/guards/lite-circuit.ts, a breaker
//   with the surface the plugin and its users touch (the breaker tests run against both);
// - uuid → lib/browser/uuid.ts (Web Crypto's getRandomValues; randomUUID is tried first anyway);
// - hedging and fault injection (their options and engine steps) → one stand-in each that runs the
//   code an option value brings (`hedging()` from axios-resilience/hedging, `chaos()` from
//   axios-resilience/chaos), or throws a TypeError naming that import;
// - the cross-call rate limiter (its options and gate) → one stand-in that makes none unless the
//   `rateLimit` value brings it (`rateLimiting()` from axios-resilience/rate-limiting): a browser
//   app's calls each wait what their server asks, and pace together only on request;
// - the rate-limit header dialects → a stand-in that reads none unless the `rateLimitHeaders` value
//   brings them (`rateLimitHeaders()` from axios-resilience/rate-limit-headers), per plugin;
// - Node stream recording, the multipart boundary pinned for axios's http adapter, and the
//   accounting of a redirect follow-redirects reports → lib/browser/ stand-ins.
//
// Modules in lib/browser/ import the real ones (a capability entry brings the real hedging code),
// so the swaps apply to every importer but those. All browser entries are built together: what
// they share is one chunk, loaded once, so a capability and the plugin use the same classes.
import { resolve, sep } from 'node:path';
import typescript from '@rollup/plugin-typescript';

const lib = (path) => resolve('lib', path);

/** The package or source file → its browser stand-in. */
export const SWAPS = new Map([
  ['opossum', lib('guards/lite-circuit.ts')],
  ['uuid', lib('browser/uuid.ts')],
  [lib('engine/hedge.ts'), lib('browser/hedge.ts')],
  [lib('policy/hedge-options.ts'), lib('browser/hedge.ts')],
  [lib('engine/chaos.ts'), lib('browser/chaos.ts')],
  [lib('policy/chaos-options.ts'), lib('browser/chaos.ts')],
  [lib('engine/node-recording.ts'), lib('browser/node-recording.ts')],
  [lib('engine/node-form.ts'), lib('browser/node-form.ts')],
  [lib('engine/redirects.ts'), lib('browser/redirects.ts')],
  [lib('policy/rate-limit-header-options.ts'), lib('browser/rate-limit-header-options.ts')],
  [lib('policy/rate-limit-options.ts'), lib('browser/rate-gate.ts')],
  [lib('engine/rate-gate.ts'), lib('browser/rate-gate.ts')],
  [lib('policy/breaker-options.ts'), lib('browser/breaker-gate.ts')],
  [lib('guards/breaker.ts'), lib('browser/breaker-gate.ts')],
  [lib('engine/breaker-gate.ts'), lib('browser/breaker-gate.ts')],
]);

export const STANDINS = lib('browser') + sep;

/** Resolves an import to its browser stand-in, unless the importer is a stand-in or capability. */
function browserSwaps() {
  return {
    name: 'browser-swaps',
    async resolveId(source, importer, options) {
      if (importer === undefined || importer.startsWith(STANDINS)) return null;
      if (SWAPS.has(source)) return SWAPS.get(source);
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (resolved === null || resolved.external) return resolved;
      return SWAPS.get(resolved.id) ?? resolved;
    },
  };
}

export const browserEntries = {
  index: 'lib/index.ts',
  hedging: 'lib/browser/hedging.ts',
  chaos: 'lib/browser/fault-injection.ts',
  'rate-limit-headers': 'lib/browser/rate-limit-headers.ts',
  'rate-limiting': 'lib/browser/rate-limiting.ts',
  breaker: 'lib/browser/breaker.ts',
};

/**
 * ESM and CommonJS builds of the entries into `dir`, their shared code in chunks. A chunk an entry
 * reaches only through another chunk is not hoisted into the entry as a bare `import './x.mjs'`:
 * the package says `"sideEffects": false`, so a bundler ignores such an import and warns about it.
 */
export function outputsTo(dir) {
  const shared = { dir, sourcemap: false, hoistTransitiveImports: false };
  return [
    { ...shared, format: 'es', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' },
    {
      ...shared,
      format: 'cjs',
      entryFileNames: '[name].cjs',
      chunkFileNames: '[name]-[hash].cjs',
      exports: 'named',
      interop: 'auto',
    },
  ];
}

export const browserBuild = {
  input: browserEntries,
  external: (id) => /^axios(\/|$)/.test(id),
  plugins: [
    browserSwaps(),
    typescript({
      tsconfig: './tsconfig.json',
      include: ['lib/**/*.ts'],
      compilerOptions: { noEmit: false, declaration: false, outDir: 'dist/browser', module: 'ESNext' },
    }),
  ],
  output: outputsTo('dist/browser'),
};
