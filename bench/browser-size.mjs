// What the plugin weighs in a browser app, measured as a user's build sees it: one-line apps that
// install the plugin (with defaults, or with one capability) on axios, built with esbuild
// (`--bundle --minify --platform=browser`) and with a Vite production build, minus the same app
// with bare axios; JS files summed, minified / gzip -9 / brotli -11. The apps import
// `axios-resilience` by name, so the package's `exports` (its `browser` condition) decide what is
// bundled: run `npm run build` first. Used by `npm run size` (the budgets) and `npm run bench:size`
// (the table).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const modules = join(root, 'node_modules');

const KEEP = 'globalThis.http = axios;';

/** The apps: the import lines and the line that uses them. `bare` is the baseline. */
export const APPS = {
  bare: `import axios from 'axios';\n${KEEP}\n`,
  default: `import axios from 'axios';\nimport { retryPlugin } from 'axios-resilience';\nretryPlugin().install(axios);\n${KEEP}\n`,
  hedging:
    `import axios from 'axios';\nimport { retryPlugin } from 'axios-resilience';\nimport { hedging } from 'axios-resilience/hedging';\n` +
    `retryPlugin({ hedge: hedging({ delayMs: 'p95' }) }).install(axios);\n${KEEP}\n`,
  chaos:
    `import axios from 'axios';\nimport { retryPlugin } from 'axios-resilience';\nimport { chaos } from 'axios-resilience/chaos';\n` +
    `retryPlugin({ chaos: chaos({ faults: [{ rate: 0.1, status: 503 }] }) }).install(axios);\n${KEEP}\n`,
  'rate-limit-headers':
    `import axios from 'axios';\nimport { retryPlugin } from 'axios-resilience';\nimport { rateLimitHeaders } from 'axios-resilience/rate-limit-headers';\n` +
    `retryPlugin({ rateLimitHeaders: rateLimitHeaders() }).install(axios);\n${KEEP}\n`,
  'rate-limiting':
    `import axios from 'axios';\nimport { retryPlugin } from 'axios-resilience';\nimport { rateLimiting } from 'axios-resilience/rate-limiting';\n` +
    `retryPlugin({ rateLimit: rateLimiting() }).install(axios);\n${KEEP}\n`,
  breaker:
    `import axios from 'axios';\nimport { retryPlugin } from 'axios-resilience';\nimport { breaker } from 'axios-resilience/breaker';\n` +
    `retryPlugin({ breaker: breaker() }).install(axios);\n${KEEP}\n`,
  'axios-retry': `import axios from 'axios';\nimport axiosRetry from 'axios-retry';\naxiosRetry(axios);\n${KEEP}\n`,
  'retry-axios': `import axios from 'axios';\nimport * as rax from 'retry-axios';\nrax.attach(axios);\n${KEEP}\n`,
};

/** minified / gzip -9 / brotli -11 bytes of one file's contents. */
export function sizesOf(bytes) {
  return {
    min: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }).length,
  };
}

export const minus = (a, b) => ({ min: a.min - b.min, gzip: a.gzip - b.gzip, brotli: a.brotli - b.brotli });

/** Every .js file under `dir`, each compressed on its own (as a server sends them), summed. */
async function jsSizes(dir) {
  const total = { min: 0, gzip: 0, brotli: 0 };
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const one = sizesOf(await readFile(join(entry.parentPath, entry.name)));
    for (const key of Object.keys(total)) total[key] += one[key];
  }
  return total;
}

/** A throwaway project whose node_modules links this package and the peers, as `npm install` leaves them. */
export async function createProject() {
  if (!existsSync(join(root, 'dist/browser/index.mjs'))) {
    throw new Error('dist/browser/index.mjs is missing: run npm run build first');
  }
  const dir = await mkdtemp(join(tmpdir(), 'axr-size-'));
  await mkdir(join(dir, 'node_modules'));
  await symlink(root, join(dir, 'node_modules/axios-resilience'), 'dir');
  for (const name of ['axios', 'axios-retry', 'retry-axios']) {
    await symlink(join(modules, name), join(dir, 'node_modules', name), 'dir');
  }
  return {
    dir,
    /** Builds app `name` with `bundler` ('esbuild' or 'vite'); its JS sizes. */
    async build(name, bundler) {
      const appDir = join(dir, `${name}-${bundler}`);
      await mkdir(appDir, { recursive: true });
      await writeFile(join(appDir, 'main.js'), APPS[name]);
      const out = join(appDir, 'out');
      if (bundler === 'esbuild') {
        const args = ['main.js', '--bundle', '--minify', '--platform=browser', '--format=esm', `--outdir=${out}`];
        await run(join(modules, 'esbuild/bin/esbuild'), args, { cwd: appDir });
      } else {
        await writeFile(
          join(appDir, 'index.html'),
          '<!doctype html><html><body><script type="module" src="./main.js"></script></body></html>\n',
        );
        const args = [join(modules, 'vite/bin/vite.js'), 'build', '--outDir', out, '--logLevel', 'error'];
        await run(process.execPath, args, { cwd: appDir, env: { ...process.env, NO_COLOR: '1' } });
      }
      return jsSizes(out);
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** What each app adds to the bare axios app, per bundler: { [bundler]: { [app]: sizes } }. */
export async function measure(apps = Object.keys(APPS).filter((a) => a !== 'bare'), bundlers = ['esbuild', 'vite']) {
  const project = await createProject();
  try {
    const added = {};
    for (const bundler of bundlers) {
      const bare = await project.build('bare', bundler);
      added[bundler] = {};
      for (const app of apps) added[bundler][app] = minus(await project.build(app, bundler), bare);
    }
    return added;
  } finally {
    await project.remove();
  }
}
