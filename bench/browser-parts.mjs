// esbuild over the sources with the browser build's swaps (rollup.browser.mjs): what each source
// module of the plugin costs in a minified browser bundle. Used by bench/size.mjs.
import { build } from 'esbuild';
import { resolve, sep } from 'node:path';
import { SWAPS, STANDINS } from '../rollup.browser.mjs';

/** esbuild's counterpart of rollup.browser.mjs's `browserSwaps`. */
export function swapPlugin() {
  return {
    name: 'browser-swaps',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === 'inner' || args.importer === '' || args.importer.startsWith(STANDINS)) return undefined;
        if (SWAPS.has(args.path)) return { path: SWAPS.get(args.path) };
        if (!args.path.startsWith('.')) return undefined;
        const found = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'inner' });
        if (found.errors.length > 0) return undefined;
        const swapped = SWAPS.get(found.path);
        return swapped === undefined ? undefined : { path: swapped };
      });
    },
  };
}

/** Minified bytes per source file of `code` (an app importing lib/ sources), axios excluded. */
export async function partsOf(code, root = process.cwd()) {
  const result = await build({
    stdin: { contents: code, resolveDir: root, sourcefile: 'app.js', loader: 'js' },
    bundle: true,
    minify: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    metafile: true,
    logLevel: 'silent',
    plugins: [swapPlugin()],
  });
  const inputs = Object.values(result.metafile.outputs)[0].inputs;
  const parts = new Map();
  for (const [file, { bytesInOutput }] of Object.entries(inputs)) {
    if (/node_modules[\\/]axios[\\/]/.test(file) || bytesInOutput === 0) continue;
    parts.set(
      resolve(root, file)
        .slice(root.length + 1)
        .split(sep)
        .join('/'),
      bytesInOutput,
    );
  }
  return parts;
}
