// `npm run bench:size` (after `npm run build`): the table of what each retry library adds to a
// browser app that uses axios (esbuild and Vite, minified / gzip / brotli; bench/browser-size.mjs),
// what each capability of ours adds on top of the default plugin, and what each part of the default
// plugin costs (esbuild over the sources with the browser build's swaps, bench/browser-parts.mjs).
// A part's gzip and brotli figures are its share of the minified bytes applied to the whole
// bundle's ratio: compressed sizes do not add up part by part.
import { measure, minus } from './browser-size.mjs';
import { partsOf } from './browser-parts.mjs';

const kB = (bytes) => (bytes / 1000).toFixed(1);
const cells = (s) => `${kB(s.min)} kB | ${kB(s.gzip)} kB | ${kB(s.brotli)} kB`;

/** The parts of the plugin, by source file. First match wins. */
const PARTS = [
  ["a refused call's own wait (`Retry-After`, `retry-after-ms`)", /policy\/(retry-after|header-values|rate-limit-)/],
  ['retry budget', /guards\/(budget|local-budget|origin-budget|store-health)\.ts|engine\/admission/],
  [
    'options: defaults, resolution, validation (codes in production)',
    /policy\/(options|call-fields|guard-options|key-options|table-options|validate|suggest|defaults|chaos-per-request)/,
  ],
  [
    'decision table, backoff, keys',
    /policy\/(classify|backoff|idempotency|random|origin)\.ts|engine\/judge|browser\/uuid/,
  ],
  ['bodies (forms, web streams)', /engine\/(body|recording|recorded-bytes)|browser\/node-(recording|form)/],
  ['attempt loop and outcome', /engine\//],
  ['install, adapter, plugin', /plugin\//],
  ["capability hooks (`browser/`, the breaker's stand-ins included)", /browser\//],
];

function partOf(file) {
  if (file.includes('node_modules')) return file.replace(/.*node_modules\/([^/]+).*/, '$1 (dependency)');
  return (
    PARTS.find(([, pattern]) => pattern.test(file))?.[0] ?? 'other (errors, the answer read once, origins, scopes)'
  );
}

const added = await measure();
const lines = [];
lines.push('## Added to a browser app that uses axios\n');
lines.push('| library | bundler | minified | gzip | brotli |');
lines.push('| --- | --- | ---: | ---: | ---: |');
for (const [app, label] of [
  ['default', 'axios-resilience (default plugin)'],
  ['axios-retry', 'axios-retry 4.5'],
  ['retry-axios', 'retry-axios 4.0'],
]) {
  for (const bundler of ['esbuild', 'vite']) lines.push(`| ${label} | ${bundler} | ${cells(added[bundler][app])} |`);
}
lines.push('\n## Each capability, on top of the default plugin\n');
lines.push('| capability | bundler | minified | gzip | brotli |');
lines.push('| --- | --- | ---: | ---: | ---: |');
for (const app of ['breaker', 'hedging', 'chaos', 'rate-limit-headers', 'rate-limiting']) {
  for (const bundler of ['esbuild', 'vite']) {
    lines.push(
      `| axios-resilience/${app} | ${bundler} | ${cells(minus(added[bundler][app], added[bundler].default))} |`,
    );
  }
}

const parts = await partsOf(
  `import axios from 'axios'; import { retryPlugin } from './lib/index.ts'; retryPlugin().install(axios);`,
);
const total = [...parts.values()].reduce((a, b) => a + b, 0);
const whole = added.esbuild.default;
const grouped = new Map();
const files = new Map();
for (const [file, bytes] of parts) {
  const part = partOf(file);
  grouped.set(part, (grouped.get(part) ?? 0) + bytes);
  files.set(part, [...(files.get(part) ?? []), [file, bytes]]);
}
lines.push('\n## The default plugin, part by part (esbuild, minified; gzip and brotli pro rata)\n');
lines.push('| part | minified | gzip | brotli | largest files |');
lines.push('| --- | ---: | ---: | ---: | --- |');
for (const [part, bytes] of [...grouped].sort((a, b) => b[1] - a[1])) {
  const share = bytes / total;
  const largest = files
    .get(part)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([file, b]) => `${file.replace(/^lib\//, '')} ${kB(b)}`)
    .join(', ');
  lines.push(
    `| ${part} | ${kB(bytes)} kB | ${kB(share * whole.gzip)} kB | ${kB(share * whole.brotli)} kB | ${largest} |`,
  );
}
lines.push(`| **total** | **${kB(total)} kB** | **${kB(whole.gzip)} kB** | **${kB(whole.brotli)} kB** | |`);
console.log(lines.join('\n'));
