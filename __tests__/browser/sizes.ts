/**
 * `npx tsx __tests__/browser/sizes.ts` (after `npm run build`): what the plugin adds to a browser
 * app. Builds the fixture app with and without `axios-resilience` (Vite 8 and esbuild, default
 * settings, minified) and prints the JS each build ships, raw, gzip -9 and brotli -11, as the
 * Markdown table in docs/performance.md ("Browser bundles").
 */
import { createProject } from './build';
import type { Bundler, Sizes } from './build';

const kB = (bytes: number): string => (bytes / 1000).toFixed(1);
const row = (s: Sizes): string => `${kB(s.raw)} / ${kB(s.gzip)} / ${kB(s.brotli)}`;

async function main(): Promise<void> {
  const project = await createProject();
  try {
    const lines = [
      '| bundler | app without the plugin | app with the plugin | added by the plugin |',
      '| ------- | ---------------------- | ------------------- | ------------------- |',
    ];
    for (const bundler of ['vite', 'esbuild'] as Bundler[]) {
      const bare = (await project.build(bundler, 'bare')).sizes;
      const app = (await project.build(bundler, 'app')).sizes;
      const added = { raw: app.raw - bare.raw, gzip: app.gzip - bare.gzip, brotli: app.brotli - bare.brotli };
      lines.push(`| ${bundler} | ${row(bare)} | ${row(app)} | **${row(added)}** |`);
    }
    console.log('kB (1000 bytes), raw / gzip / brotli\n');
    console.log(lines.join('\n'));
  } finally {
    await project.remove();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
