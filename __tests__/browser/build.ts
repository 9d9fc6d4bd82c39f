/**
 * Builds the fixture apps (__tests__/browser/fixtures) the way a user builds theirs: a throwaway
 * project whose node_modules holds `axios` and `axios-resilience` (a link to this package, so the
 * import resolves through package.json "exports" to dist/), then `vite build` or `esbuild --bundle
 * --platform=browser` with nothing configured.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const run = promisify(execFile);

/**
 * The bundlers run as from a user's shell: without Jest's `NODE_ENV=test`, which Vite would take as
 * the app's `process.env.NODE_ENV` (a production build then keeps the validation messages' words).
 */
const { NODE_ENV: _jest, ...shell } = process.env;
const bundlerEnv = { ...shell, NO_COLOR: '1' };

export const repoRoot = join(__dirname, '../..');

/**
 * The package under test: this repository, or `AXR_PACKAGE_DIR` (a directory with the same
 * package.json and a built dist/, e.g. a packed copy).
 */
export function packageDir(): string {
  const dir = process.env.AXR_PACKAGE_DIR ?? repoRoot;
  if (!existsSync(join(dir, 'dist/index.mjs'))) {
    throw new Error(`${dir}/dist/index.mjs is missing: run npm run build first (npm run test:browser does)`);
  }
  return dir;
}

export type Bundler = 'vite' | 'esbuild';
/** `differential`: the app of differential.test.ts (bodies built in the page). */
export type Variant = 'app' | 'bare' | 'differential';

export interface Sizes {
  raw: number;
  gzip: number;
  brotli: number;
}

export interface Built {
  bundler: Bundler;
  variant: Variant;
  /** Directory to serve: index.html and the JS it loads. */
  dir: string;
  /** The JS files of the build, summed (each compressed on its own, as a server sends them). */
  sizes: Sizes;
  /** What the bundler printed. */
  output: string;
}

export interface Project {
  dir: string;
  build(bundler: Bundler, variant: Variant): Promise<Built>;
  remove(): Promise<void>;
}

/** A temporary project with the fixtures and a node_modules as `npm install` would leave it. */
export async function createProject(): Promise<Project> {
  const pkg = packageDir();
  const dir = await mkdtemp(join(tmpdir(), 'axr-browser-'));
  await cp(join(__dirname, 'fixtures'), dir, { recursive: true });
  await mkdir(join(dir, 'node_modules'));
  await symlink(pkg, join(dir, 'node_modules/axios-resilience'), 'dir');
  await symlink(join(repoRoot, 'node_modules/axios'), join(dir, 'node_modules/axios'), 'dir');
  return {
    dir,
    async build(bundler, variant) {
      const cwd = join(dir, variant);
      let output: string;
      let outDir: string;
      if (bundler === 'vite') {
        // `vite build` in the app's directory: index.html is the entry, dist/ the output.
        const bin = join(repoRoot, 'node_modules/vite/bin/vite.js');
        const result = await run(process.execPath, [bin, 'build'], { cwd, env: bundlerEnv });
        output = result.stdout + result.stderr;
        outDir = join(cwd, 'dist');
      } else {
        const bin = join(repoRoot, 'node_modules/esbuild/bin/esbuild');
        outDir = join(cwd, 'out');
        const args = ['main.js', '--bundle', '--platform=browser', '--format=esm', '--minify', `--outdir=${outDir}`];
        const result = await run(bin, args, { cwd, env: bundlerEnv });
        output = result.stdout + result.stderr;
        await cp(join(cwd, 'index.html'), join(outDir, 'index.html'));
      }
      return { bundler, variant, dir: outDir, sizes: await jsSizes(outDir), output };
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

async function jsSizes(dir: string): Promise<Sizes> {
  const total: Sizes = { raw: 0, gzip: 0, brotli: 0 };
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const bytes = await readFile(join(entry.parentPath, entry.name));
    total.raw += bytes.length;
    total.gzip += gzipSync(bytes, { level: 9 }).length;
    total.brotli += brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }).length;
  }
  return total;
}
