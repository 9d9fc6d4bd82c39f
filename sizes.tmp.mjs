import { build } from 'esbuild';
import { brotliCompressSync } from 'node:zlib';
import { SWAPS, STANDINS } from './rollup.browser.mjs';
import { resolve as r } from 'node:path';
const swaps = { name: 'swaps', setup(b) {
  b.onResolve({ filter: /.*/ }, async (a) => {
    if (a.pluginData === 'skip' || !a.importer || a.importer.startsWith(STANDINS)) return;
    if (SWAPS.has(a.path)) return { path: SWAPS.get(a.path) };
    const res = await b.resolve(a.path, { resolveDir: a.resolveDir, kind: a.kind, importer: a.importer, pluginData: 'skip' });
    if (res.errors.length || res.external) return;
    return SWAPS.has(res.path) ? { path: SWAPS.get(res.path) } : undefined;
  });
} };
const res = await build({ stdin: { contents: "import { retryPlugin } from './lib/index.ts'; console.log(retryPlugin);", resolveDir: process.cwd(), loader: 'ts' }, bundle: true, minify: true, write: false, metafile: true, format: 'esm', platform: 'browser', external: ['axios'], define: { 'process.env.NODE_ENV': '"production"' }, plugins: [swaps] });
const out = res.outputFiles[0].contents;
console.log('total', out.length, 'brotli', brotliCompressSync(out).length);
const inputs = Object.values(res.metafile.outputs)[0].inputs;
const dirs = {};
for (const [f, v] of Object.entries(inputs)) { const d = f.split('/').slice(0, 2).join('/'); dirs[d] = (dirs[d] || 0) + v.bytesInOutput; }
console.log(dirs);
for (const [f, v] of Object.entries(inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput).slice(0, 40)) console.log(v.bytesInOutput, f);
