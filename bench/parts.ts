/**
 * Where the plugin's per-call CPU goes: the stub-adapter run of bench:overhead, with the plugin's
 * parts switched off one at a time. `--base <path>` loads the plugin from a build (say dist/index.cjs)
 * instead of lib/ through tsx; `--lib <path>` adds the same variants for a second copy (a patched
 * lib/ directory or a bundle of it), to measure a proposed change against the current code in one run.
 *
 *   npx tsx bench/parts.ts [--base dist/index.cjs] [--lib .bench-tmp/lib-patched] [--rounds 9] [--calls 20000]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import axios from 'axios';
import type { AxiosInstance } from 'axios';
import * as current from '../lib';
import { drive, fixed, machine, median, stubAdapter, table } from './common';

const { values: args } = parseArgs({
  options: {
    lib: { type: 'string' },
    base: { type: 'string' },
    rounds: { type: 'string', default: '9' },
    calls: { type: 'string', default: '20000' },
    method: { type: 'string', default: 'get' },
  },
});

type Lib = typeof current;

async function main(): Promise<void> {
  const load = async (path: string): Promise<Lib> =>
    (await import(path.endsWith('.cjs') || path.endsWith('.js') ? resolve(path) : resolve(path, 'index.ts'))) as Lib;
  const other: Lib | undefined = args.lib ? await load(args.lib) : undefined;
  const base: Lib = args.base ? await load(args.base) : current;
  const variants: Array<[string, Lib | undefined, current.RetryPluginOptions]> = [
    ['bare axios', undefined, {}],
    ['plugin defaults', base, {}],
    ['plugin breaker: false', base, { breaker: false }],
    ['plugin budget: false', base, { budget: false }],
    ['plugin budget+breaker off', base, { budget: false, breaker: false }],
    ['plugin all off (no key)', base, { budget: false, breaker: false, idempotencyKey: false }],
    // Installed, but the request interceptor returns at once: what axios's interceptor chain costs.
    ['plugin, retry: false per request', base, {}],
  ];
  if (other) {
    variants.push(['patched defaults', other, {}]);
    variants.push(['patched breaker: false', other, { breaker: false }]);
    variants.push(['patched budget+breaker off', other, { budget: false, breaker: false }]);
  }
  const clients: Array<{ name: string; http: AxiosInstance; close: () => Promise<void> }> = variants.map(
    ([name, lib, options]) => {
      const http = axios.create({ baseURL: 'http://stub.local', adapter: stubAdapter });
      if (!lib) return { name, http, close: () => Promise.resolve() };
      const plugin = lib.retryPlugin(options);
      plugin.install(http);
      if (name.includes('retry: false')) http.defaults.retry = false;
      return { name, http, close: () => plugin.close() };
    },
  );
  const calls = Number(args.calls);
  const rounds = Number(args.rounds);
  const call =
    args.method === 'post'
      ? (http: AxiosInstance) => http.post('/payments', { amount: 1 })
      : (http: AxiosInstance) => http.get('/items/1');
  const seconds = clients.map(() => [] as number[]);
  for (let round = -1; round < rounds; round++) {
    for (const [i, c] of clients.entries()) {
      const s = await drive(calls, 1, () => call(c.http));
      if (round >= 0) seconds[i]!.push(s);
    }
  }
  const bare = seconds[0]!;
  console.log(`# bench/parts.ts ${args.method.toUpperCase()} (${machine()}), ${rounds} rounds × ${calls} stub calls\n`);
  console.log(
    table(
      ['variant', 'median µs/call', 'median µs over bare'],
      clients.map((c, i) => [
        c.name,
        fixed(median(seconds[i]!.map((s) => (s / calls) * 1e6)), 2),
        fixed(median(seconds[i]!.map((s, r) => ((s - bare[r]!) / calls) * 1e6)), 2),
      ]),
    ),
  );
  for (const c of clients) await c.close();
}

void main();
