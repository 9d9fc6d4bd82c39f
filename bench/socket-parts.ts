/**
 * Where the plugin's cost over real sockets goes: GETs at concurrency 32 to the child-process
 * server, through bare axios, through synthetic pieces of what the plugin does (an identity
 * interceptor, an adapter wrapper, opossum around the adapter) and through the plugin with its
 * parts switched off one at a time. The order of the variants rotates every round, so no variant
 * always runs right after a given other one; reported are medians of the per-round ratio to bare.
 *
 *   BENCH_PLUGIN=dist/index.cjs npx tsx bench/socket-parts.ts [--rounds 15] [--requests 1000] [--only a,b]
 *     [--other patched.cjs]   (adds the plugin rows again for a second build)
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import axios, { getAdapter } from 'axios';
import type { AxiosAdapter, AxiosInstance, InternalAxiosRequestConfig } from 'axios';
import CircuitBreaker from 'opossum';
import { drive, fixed, keepAliveAgent, machine, median, plugin, pluginSource, startServer, table } from './common';
import type { RetryPluginOptions } from '../lib';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    requests: { type: 'string', default: '1000' },
    only: { type: 'string' },
    other: { type: 'string' },
  },
});

type Setup = (http: AxiosInstance) => () => Promise<void>;
/** A second build (`--other patched.cjs`), to measure a change against the current one in one run. */
const other = args.other ? (createRequire(__filename)(resolve(args.other)) as typeof plugin) : undefined;
const none: Setup = () => () => Promise.resolve();
const withPlugin =
  (options: RetryPluginOptions, perRequest?: false, lib: typeof plugin = plugin): Setup =>
  (http) => {
    const p = lib.retryPlugin(options);
    p.install(http);
    if (perRequest === false) http.defaults.retry = false;
    return () => p.close();
  };

const VARIANTS: Array<[string, Setup]> = [
  ['bare axios', none],
  [
    'identity interceptors',
    (http) => {
      http.interceptors.request.use((c) => c, undefined, { synchronous: true });
      http.interceptors.response.use(undefined, (e: unknown) => Promise.reject(e));
      return () => Promise.resolve();
    },
  ],
  [
    'adapter wrapper (async)',
    (http) => {
      http.interceptors.request.use(
        (c: InternalAxiosRequestConfig) => {
          const base = getAdapter(c.adapter ?? axios.defaults.adapter, c);
          c.adapter = async (attempt) => await base(attempt);
          return c;
        },
        undefined,
        { synchronous: true },
      );
      return () => Promise.resolve();
    },
  ],
  [
    'adapter wrapper (sync, base resolved once)',
    (http) => {
      const base = getAdapter(axios.defaults.adapter, undefined);
      http.interceptors.request.use(
        (c: InternalAxiosRequestConfig) => {
          c.adapter = (attempt) => base(attempt);
          return c;
        },
        undefined,
        { synchronous: true },
      );
      return () => Promise.resolve();
    },
  ],
  [
    'adapter wrapper (async, base resolved once)',
    (http) => {
      const base = getAdapter(axios.defaults.adapter, undefined);
      http.interceptors.request.use(
        (c: InternalAxiosRequestConfig) => {
          c.adapter = async (attempt) => await base(attempt);
          return c;
        },
        undefined,
        { synchronous: true },
      );
      return () => Promise.resolve();
    },
  ],
  [
    'adapter wrapper (sync, getAdapter per call)',
    (http) => {
      http.interceptors.request.use(
        (c: InternalAxiosRequestConfig) => {
          const base = getAdapter(c.adapter ?? axios.defaults.adapter, c);
          c.adapter = (attempt) => base(attempt);
          return c;
        },
        undefined,
        { synchronous: true },
      );
      return () => Promise.resolve();
    },
  ],
  [
    'config.adapter = http adapter itself',
    (http) => {
      const base = getAdapter(axios.defaults.adapter, undefined);
      http.interceptors.request.use(
        (c: InternalAxiosRequestConfig) => {
          c.adapter = base;
          return c;
        },
        undefined,
        { synchronous: true },
      );
      return () => Promise.resolve();
    },
  ],
  [
    'opossum around adapter',
    (http) => {
      const breaker = new CircuitBreaker((f: AxiosAdapter, c: InternalAxiosRequestConfig) => f(c), {
        timeout: false,
        rollingPercentilesEnabled: false,
        enableSnapshots: false,
      });
      http.interceptors.request.use(
        (c: InternalAxiosRequestConfig) => {
          const base = getAdapter(c.adapter ?? axios.defaults.adapter, c);
          c.adapter = (attempt) => breaker.fire(base, attempt) as ReturnType<typeof base>;
          return c;
        },
        undefined,
        { synchronous: true },
      );
      return () => {
        breaker.shutdown();
        return Promise.resolve();
      };
    },
  ],
  ['plugin, retry: false per request', withPlugin({}, false)],
  ['plugin, budget+breaker off', withPlugin({ budget: false, breaker: false })],
  ['plugin, breaker: false', withPlugin({ breaker: false })],
  ['plugin, budget: false', withPlugin({ budget: false })],
  ['plugin, defaults', withPlugin({})],
  ...(other
    ? ([
        ['other build, budget+breaker off', withPlugin({ budget: false, breaker: false }, undefined, other)],
        ['other build, breaker: false', withPlugin({ breaker: false }, undefined, other)],
        ['other build, defaults', withPlugin({}, undefined, other)],
      ] as Array<[string, Setup]>)
    : []),
];

async function main(): Promise<void> {
  const only = args.only?.split(',');
  const variants = VARIANTS.filter(([name], i) => i === 0 || !only || only.some((o) => name.includes(o)));
  const rounds = Number(args.rounds);
  const requests = Number(args.requests);
  console.log(`# bench/socket-parts.ts (${machine()}), plugin from ${pluginSource}`);
  console.log(`${rounds} rounds (+1 warm-up) × ${requests} GETs at concurrency 32, order rotated per round\n`);
  const server = await startServer();
  const agent = keepAliveAgent();
  const clients = variants.map(([name, setup]) => {
    const http = axios.create({ baseURL: server.url, httpAgent: agent });
    return { name, http, close: setup(http) };
  });
  const seconds = clients.map(() => [] as number[]);
  for (let round = -1; round < rounds; round++) {
    for (let k = 0; k < clients.length; k++) {
      const i = (k + Math.max(round, 0)) % clients.length;
      const s = await drive(requests, 32, () => clients[i]!.http.get('/items/1'));
      if (round >= 0) seconds[i]!.push(s);
    }
  }
  const bare = seconds[0]!;
  console.log(
    table(
      ['variant', 'median req/s', 'median ratio to bare', 'µs per call over bare'],
      clients.map((c, i) => [
        c.name,
        fixed(median(seconds[i]!.map((s) => requests / s)), 0),
        fixed(median(seconds[i]!.map((s, r) => bare[r]! / s)), 3),
        fixed(median(seconds[i]!.map((s, r) => ((s - bare[r]!) / requests) * 1e6)), 1),
      ]),
    ),
  );
  for (const c of clients) await c.close();
  agent.destroy();
  await server.close();
}

void main();
