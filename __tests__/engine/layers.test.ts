/**
 * The folders of lib/ are its architecture, and imports may only point down it:
 * types (the vocabulary) ← policy ← guards ← engine ← plugin ← index. The subpaths (testing,
 * redis, otel, capabilities) and the browser build's stand-ins (browser) may use anything below the plugin. A cycle is dpdm's to find (`npm run lint`);
 * this test keeps each layer from reaching up.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const LIB = resolve(__dirname, '../../lib');

/** What each folder may import from lib/ (besides itself); npm packages are not checked here. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  types: [],
  policy: ['types'],
  guards: ['types', 'policy'],
  engine: ['types', 'policy', 'guards'],
  plugin: ['types', 'policy', 'guards', 'engine'],
  redis: ['types', 'policy', 'guards'],
  testing: ['types', 'policy', 'guards'],
  otel: ['types', 'policy'],
  // The browser build's stand-ins and capability entries (rollup.browser.mjs), and the Node capability subpaths.
  browser: ['types', 'policy', 'guards', 'engine'],
  capabilities: ['types'],
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** The layer a file or module path is in: its folder under lib/, or the face for index.ts and augment.ts. */
function layerOf(path: string): string {
  const parts = relative(LIB, path).split('/');
  const folder = parts.length === 1 ? parts[0]!.replace(/\.ts$/, '') : parts[0]!;
  return Object.hasOwn(MAY_IMPORT, folder) ? folder : 'face';
}

const all = files(LIB);
const imports = all.flatMap((file) =>
  [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s+'(\.[^']*)'/g)].map((match) => ({
    file: relative(LIB, file),
    from: layerOf(file),
    to: layerOf(resolve(dirname(file), match[1]!)),
  })),
);

test('the folders exist as the architecture says', () => {
  expect(new Set(all.map(layerOf))).toEqual(new Set([...Object.keys(MAY_IMPORT), 'face']));
});

test.each(Object.entries(MAY_IMPORT))('%s imports only from the layers below it', (layer, allowed) => {
  const upward = imports.filter((i) => i.from === layer && i.to !== layer && !allowed.includes(i.to));
  expect(upward).toEqual([]);
});

test('nothing but the face imports the plugin', () => {
  expect(imports.filter((i) => i.to === 'plugin' && i.from !== 'plugin' && i.from !== 'face')).toEqual([]);
});
