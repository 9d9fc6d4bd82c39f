import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import vm from 'node:vm';
import { build } from 'esbuild';
import { startFaultServer } from '../../lib/testing';

const root = join(__dirname, '../..');

interface Generated {
  es: string;
  cjs: string;
  esFiles: string[];
  cjsFiles: string[];
}

/** Builds one entry in memory with the project's own rollup config. */
function generate(entry: string): Generated {
  const out = execFileSync(process.execPath, [join(__dirname, 'generate-entry.mjs'), entry], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out) as Generated;
}

/** Every module specifier a bundle imports or requires, static or dynamic. */
function specifiers(code: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) found.add(match[1]!);
  return [...found].sort();
}

const NODE_BUILTINS = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);

let main: Generated;
let testing: Generated;
beforeAll(() => {
  main = generate('index');
  testing = generate('testing');
}, 120_000);

describe('the main entry is browser-safe', () => {
  test('the ESM build imports axios, opossum and uuid and nothing else', () => {
    expect(main.esFiles).toEqual(['index.mjs']);
    expect(specifiers(main.es)).toEqual(['axios', 'opossum', 'uuid']);
  });

  test('the ESM build imports no Node built-in, with or without the node: prefix', () => {
    const builtins = specifiers(main.es).filter((name) => NODE_BUILTINS.has(name) || name.startsWith('node:'));
    expect(builtins).toEqual([]);
    expect(main.es).not.toMatch(/\brequire\s*\(/);
  });

  test('the CJS build requires the same three packages', () => {
    expect(main.cjsFiles).toEqual(['index.cjs']);
    expect(specifiers(main.cjs)).toEqual(['axios', 'opossum', 'uuid']);
  });

  test('the testing helpers are not part of the main entry', () => {
    expect(main.es).not.toContain('startFaultServer');
    expect(main.es).not.toContain('createServer');
  });

  test('bundled for a browser, axios and uuid resolve to their browser builds and no Node built-in is pulled in', async () => {
    // opossum is left out: its index requires 'events', which a browser bundle gets from the
    // `events` package (see docs/guides/getting-started.md); everything else must resolve as is.
    const result = await build({
      stdin: { contents: main.es, resolveDir: root, sourcefile: 'index.mjs', loader: 'js' },
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'esm',
      external: ['opossum'],
      logLevel: 'silent',
      metafile: true,
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((file) => /node_modules\/axios\/lib\/adapters\/fetch\.js$/.test(file))).toBe(true);
    expect(inputs.some((file) => /node_modules\/axios\/lib\/adapters\/http\.js$/.test(file))).toBe(false);
    expect(inputs.some((file) => /node_modules\/uuid\/dist\/.*browser/.test(file))).toBe(true);
    const code = result.outputFiles[0]!.text;
    expect(code).toContain('crypto.getRandomValues');
    const builtins = specifiers(code).filter((name) => NODE_BUILTINS.has(name));
    expect(builtins).toEqual([]);
  }, 60_000);
});

describe('a browser bundle runs without Node', () => {
  test("bundled with opossum's browser build, it retries 503, 503, 201 over fetch with one Web Crypto key", async () => {
    // What a browser app gets: the ESM entry plus axios's and uuid's browser builds, and opossum
    // aliased to the prebuilt browser bundle it ships (which carries its own EventEmitter).
    const bundled = await build({
      stdin: {
        contents: `${main.es}\nexport { default as axios } from 'axios';\n`,
        resolveDir: root,
        sourcefile: 'index.mjs',
        loader: 'js',
      },
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'iife',
      globalName: 'bundle',
      alias: { opossum: 'opossum/dist/opossum.js' },
      logLevel: 'silent',
    });
    // A realm with the web platform's globals only: no process, require, Buffer or module.
    let randomCalls = 0;
    const webCrypto = {
      getRandomValues<T extends ArrayBufferView>(array: T): T {
        randomCalls++;
        return globalThis.crypto.getRandomValues(array as unknown as Uint8Array) as unknown as T;
      },
    };
    const server = await startFaultServer({ routes: { 'POST /v1/payments': ['503', '503', '201'] } });
    const globals: Record<string, unknown> = {
      ...{ fetch, Headers, Request, Response, AbortController, AbortSignal, URL, URLSearchParams },
      ...{ TextEncoder, TextDecoder, ReadableStream, Blob, FormData, crypto: webCrypto, console },
      ...{ setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask, SERVER: server.url },
    };
    const realm = vm.createContext(globals);
    globals.self = realm;
    try {
      vm.runInContext(bundled.outputFiles[0]!.text, realm);
      expect(vm.runInContext('typeof process + typeof require + typeof Buffer', realm)).toBe(
        'undefinedundefinedundefined',
      );
      const outcome = (await vm.runInContext(
        `(async () => {
          const plugin = bundle.retryPlugin({ baseDelayMs: 2, idempotencyKey: { serverDedupes: true } });
          const http = bundle.axios.create();
          plugin.install(http);
          try {
            const response = await http.post(SERVER + '/v1/payments', { amount: 1 });
            return { status: response.status, attempts: response.config.retryState.attempts,
                     key: response.config.retryState.idempotencyKey };
          } finally {
            await plugin.close();
          }
        })()`,
        realm,
      )) as { status: number; attempts: number; key: string };
      expect(outcome).toMatchObject({ status: 201, attempts: 3 });
      expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual([outcome.key, outcome.key, outcome.key]);
      // uuid drew the key from Web Crypto (there is nothing else in this realm to draw from).
      expect(outcome.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(randomCalls).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('the testing entry', () => {
  test('is Node-only by design: it imports Node built-ins and nothing from the main entry or its dependencies', () => {
    // node:http for the fault server; node:timers and node:diagnostics_channel for settle().
    const builtins = ['node:diagnostics_channel', 'node:http', 'node:timers'];
    expect(specifiers(testing.es)).toEqual(builtins);
    expect(specifiers(testing.cjs)).toEqual(builtins);
  });
});
