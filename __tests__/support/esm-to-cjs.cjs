// A jest transform for the ES-module-only packages the interop tests load from node_modules:
// msw 2.15's CommonJS build require()s rettime, until-async and @open-draft/deferred-promise,
// which ship only as ESM. Node 20.19 itself can
// require() an ES module, but jest's module runtime cannot before Node 24.9, so under jest the
// import of 'msw' fails with "Must use import to load ES Module". esbuild (already a dev
// dependency) rewrites their files to CommonJS. package.json's transformIgnorePatterns lets
// those three packages through to it (matching the innermost node_modules, since msw nests its
// own copy of deferred-promise) and nothing else in node_modules.
const { transformSync } = require('esbuild');

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, {
      format: 'cjs',
      loader: 'js',
      platform: 'node',
      target: 'node20',
      sourcefile: filename,
      sourcemap: 'external',
    });
    return { code, map };
  },
};
