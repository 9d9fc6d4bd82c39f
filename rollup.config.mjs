import { resolve } from 'node:path';
import typescript from '@rollup/plugin-typescript';
import { dts } from 'rollup-plugin-dts';
import { browserBuild, outputsTo } from './rollup.browser.mjs';

// Dependencies stay imports: users get one copy of axios, opossum and uuid.
const external = (id) => /^(axios|opossum|uuid)(\/|$)/.test(id) || id.startsWith('node:');

// Each entry is built on its own, so no chunk is shared between them: the browser-safe main entry
// can never pick up the Node-only testing code (lib/testing uses node:http), the Redis fleet code or
// the OpenTelemetry hook.
const entries = {
  index: 'lib/index.ts',
  testing: 'lib/testing/index.ts',
  redis: 'lib/redis/index.ts',
  otel: 'lib/otel/index.ts',
  // In Node the main entry has these built in; the subpaths hand the options back as given.
  hedging: 'lib/capabilities/hedging.ts',
  chaos: 'lib/capabilities/chaos.ts',
  'rate-limit-headers': 'lib/capabilities/rate-limit-headers.ts',
  'rate-limiting': 'lib/capabilities/rate-limiting.ts',
  breaker: 'lib/capabilities/breaker.ts',
};

/**
 * The validation messages' words (lib/policy/messages.ts) are read only behind one
 * `process.env.NODE_ENV !== 'production'` test, in lib/policy/validate.ts's `fail`: a browser app's
 * production build drops them. Servers run with NODE_ENV=production and their reader needs the
 * words, so the Node build has no such test: it is `true` here (checked on dist by
 * __tests__/package/messages.test.ts).
 */
const DEVELOPMENT = "process.env.NODE_ENV !== 'production'";
const keepMessages = {
  name: 'keep-messages',
  transform(code, id) {
    if (!id.startsWith(resolve('lib')) || !code.includes(DEVELOPMENT)) return null;
    return { code: code.replaceAll(DEVELOPMENT, 'true'), map: null };
  },
};

const build = (name, input) => [
  {
    input: { [name]: input },
    external,
    plugins: [
      keepMessages,
      typescript({
        tsconfig: './tsconfig.json',
        include: ['lib/**/*.ts'],
        compilerOptions: { noEmit: false, declaration: false, outDir: 'dist', module: 'ESNext' },
      }),
    ],
    output: outputsTo('dist'),
  },
  ...['mts', 'cts'].map((ext) => ({
    input: { [name]: input },
    external,
    plugins: [dts({ tsconfig: './tsconfig.json', compilerOptions: { noEmit: false } })],
    output: { dir: 'dist', format: 'es', entryFileNames: `[name].d.${ext}` },
  })),
];

export default [...Object.entries(entries).flatMap(([name, input]) => build(name, input)), browserBuild];
