// Installs the package the ways a stranger can today and runs one retried call in each install.
//
// 1. `git clone` this repository's committed HEAD into a temporary directory (uncommitted changes
//    are not in it: this is what a fresh clone gives), and `npm pack` there: the `prepare` script
//    builds dist/ first. The clone borrows this checkout's node_modules (CI has just run `npm ci`);
//    `--npm-ci` runs `npm ci` in the clone instead.
// 2. Installs the tarball, with axios from the registry (`--prefer-offline`: the npm cache that
//    filled this node_modules usually has it), into four fresh projects: CommonJS, ESM, and
//    TypeScript under `moduleResolution: nodenext` and `bundler` (type-checked and compiled with
//    this repository's typescript, then run).
// 3. Installs from a git URL (`npm install git+file://<clone>`), which makes npm clone, install
//    the devDependencies, run `prepare` and pack, then runs the CommonJS call there. That takes
//    the longest, so it runs beside step 2.
//
// Each call goes to a node:http server on 127.0.0.1 that answers 503 then 200; the consumer
// asserts a 200 after exactly 2 requests, as the server counted them and as retryState says.
// Prints one line per consumer and the total time; on a failure, the failing command's output.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const installed = (name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
const AXIOS = `axios@${installed('axios')}`;
const TYPES_NODE = `@types/node@${installed('@types/node')}`;
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'axios-resilience-consumers-'));

/** Runs a command; on failure, throws with its output. */
function run(cmd, args, cwd) {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: 'pipe', timeout: 600_000 });
  } catch (error) {
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  }
}

/** The same, without blocking (for the git-URL install, which runs beside the others). */
function runAsync(cmd, args, cwd) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolvePromise(output)
        : reject(new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${code}:\n${output}`)),
    );
  });
}

const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

// The consumer's call, in each module system. The server's count is what a user would notice.
const SERVER = `
let hits = 0;
const server = createServer((_request, response) => {
  hits += 1;
  response.statusCode = hits === 1 ? 503 : 200;
  response.end(JSON.stringify({ hits }));
});
await new Promise((done) => server.listen(0, '127.0.0.1', () => done(undefined)));
const { port } = server.address() as AddressInfo;
const plugin = retryPlugin({ baseDelayMs: 10 });
const client = axios.create();
plugin.install(client);
try {
  const response = await client.get(\`http://127.0.0.1:\${port}/\`);
  assert.equal(response.status, 200);
  assert.equal(hits, 2, 'the server saw 2 requests');
  assert.equal(response.config.retryState?.attempts, 2);
  console.log(\`200 after \${hits} requests (\${label})\`);
} finally {
  await plugin.close();
  server.close();
}
`;
const untyped = (source) => source.replace(' as AddressInfo', '');

const CJS = `const assert = require('node:assert/strict');
const { createServer } = require('node:http');
const axios = require('axios');
const { retryPlugin } = require('axios-resilience');
const label = process.argv[2];
(async () => {${untyped(SERVER)}})().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;
const ESM = `import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import axios from 'axios';
import { retryPlugin } from 'axios-resilience';
const label = process.argv[2];
${untyped(SERVER)}`;
const TS = `import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import axios from 'axios';
import { retryPlugin } from 'axios-resilience';
import type { RetryState } from 'axios-resilience';
const label: string = process.argv[2] ?? '';
const typed: RetryState | undefined = undefined;
void typed;
${SERVER}`;

const TSCONFIG = (module, moduleResolution) => ({
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2022'],
    module,
    moduleResolution,
    types: ['node'],
    strict: true,
    skipLibCheck: false,
    esModuleInterop: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    outDir: 'out',
  },
  files: ['index.ts'],
});

const CONSUMERS = [
  { name: 'commonjs', type: 'commonjs', file: 'index.cjs', source: CJS },
  { name: 'esm', type: 'module', file: 'index.mjs', source: ESM },
  {
    name: 'typescript-nodenext',
    type: 'module',
    file: 'index.ts',
    source: TS,
    tsconfig: TSCONFIG('NodeNext', 'NodeNext'),
  },
  {
    name: 'typescript-bundler',
    type: 'module',
    file: 'index.ts',
    source: TS,
    tsconfig: TSCONFIG('ESNext', 'Bundler'),
  },
];

/** A fresh project directory with its package.json and source written. */
function project(name, type, file, source, extra = {}) {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: `consumer-${name}`, version: '1.0.0', private: true, type, ...extra }, null, 2),
  );
  writeFileSync(join(dir, file), source);
  return dir;
}

/** Type-checks and compiles a TypeScript consumer, then runs it; else runs the file as it is. */
function runConsumer(dir, consumer, label) {
  if (consumer.tsconfig) {
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(consumer.tsconfig, null, 2));
    run(process.execPath, [tsc, '-p', 'tsconfig.json'], dir);
    return run(process.execPath, ['out/index.js', label], dir).trim();
  }
  return run(process.execPath, [consumer.file, label], dir).trim();
}

let failed = 0;
try {
  const clone = join(work, 'clone');
  run('git', ['clone', '--quiet', root, clone], work);
  const head = run('git', ['rev-parse', '--short', 'HEAD'], clone).trim();
  if (process.argv.includes('--npm-ci')) run('npm', ['ci', ...NPM_FLAGS], clone);
  else symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'), 'dir');

  // The git-URL install: npm clones the repository itself (the committed tree, no node_modules,
  // no dist/), so this starts now and runs beside the rest.
  const gitConsumer = project('git-url', 'commonjs', 'index.cjs', CJS, {
    allowScripts: { 'axios-resilience': true },
  });
  const gitStarted = Date.now();
  const gitInstall = runAsync('npm', ['install', ...NPM_FLAGS, `git+file://${clone}`, AXIOS], gitConsumer);
  gitInstall.catch(() => {}); // awaited below; this only keeps an early failure from being unhandled

  const packStarted = Date.now();
  const [info] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], clone));
  const tarball = join(work, info.filename);
  const files = info.files.map((f) => f.path);
  for (const needed of ['dist/index.cjs', 'dist/index.mjs', 'dist/index.d.cts', 'dist/index.d.mts']) {
    if (!files.includes(needed)) throw new Error(`npm pack in a fresh clone gave no ${needed}`);
  }
  console.log(`packed ${info.filename} from a fresh clone of ${head}: ${files.length} files (${seconds(packStarted)})`);

  for (const consumer of CONSUMERS) {
    const consumerStarted = Date.now();
    try {
      const dir = project(consumer.name, consumer.type, consumer.file, consumer.source);
      const deps = consumer.tsconfig ? [tarball, AXIOS, TYPES_NODE] : [tarball, AXIOS];
      run('npm', ['install', ...NPM_FLAGS, ...deps], dir);
      const said = runConsumer(dir, consumer, consumer.name);
      console.log(`ok   ${said} (${seconds(consumerStarted)})`);
    } catch (error) {
      failed++;
      console.log(`FAIL ${consumer.name}\n${error.message}`);
    }
  }

  try {
    await gitInstall;
    if (!existsSync(join(gitConsumer, 'node_modules/axios-resilience/dist/index.cjs'))) {
      throw new Error('npm install git+file:// gave a package without dist/index.cjs');
    }
    const said = runConsumer(gitConsumer, { file: 'index.cjs' }, 'commonjs, installed from a git URL');
    console.log(`ok   ${said} (${seconds(gitStarted)})`);
  } catch (error) {
    failed++;
    console.log(`FAIL git-url\n${error.message}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`${CONSUMERS.length + 1 - failed} passed, ${failed} failed, in ${seconds(started)}`);
process.exit(failed === 0 ? 0 : 1);
