import typescript from '@rollup/plugin-typescript';
import { dts } from 'rollup-plugin-dts';

// Dependencies stay imports: users get one copy of axios, opossum and uuid.
const external = (id) => /^(axios|opossum|uuid)(\/|$)/.test(id) || id.startsWith('node:');

const entries = { index: 'lib/index.ts' };

export default [
  {
    input: entries,
    external,
    plugins: [
      typescript({
        tsconfig: './tsconfig.json',
        include: ['lib/**/*.ts'],
        compilerOptions: { noEmit: false, declaration: false, outDir: 'dist', module: 'ESNext' },
      }),
    ],
    output: [
      {
        dir: 'dist',
        format: 'es',
        entryFileNames: '[name].mjs',
        chunkFileNames: '[name]-[hash].mjs',
        sourcemap: false,
      },
      {
        dir: 'dist',
        format: 'cjs',
        entryFileNames: '[name].cjs',
        chunkFileNames: '[name]-[hash].cjs',
        exports: 'named',
        interop: 'auto',
        sourcemap: false,
      },
    ],
  },
  ...['mts', 'cts'].map((ext) => ({
    input: entries,
    external,
    plugins: [dts({ tsconfig: './tsconfig.json', compilerOptions: { noEmit: false } })],
    output: { dir: 'dist', format: 'es', entryFileNames: `[name].d.${ext}` },
  })),
];
