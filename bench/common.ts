/** What the benchmarks share: the child-process server, the four contenders, and tables (statistics: stats.ts). */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { Agent } from 'node:http';
import { cpus } from 'node:os';
import { join } from 'node:path';
import axios, { AxiosHeaders } from 'axios';
import type { AxiosAdapter, AxiosInstance, InternalAxiosRequestConfig } from 'axios';
import axiosRetry from 'axios-retry';
import type { IAxiosRetryConfig } from 'axios-retry';
import * as rax from 'retry-axios';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { RetryPluginOptions } from '../lib';

export { median, medianInterval, percentile, ratioInterval, shiftInterval } from './stats';
export type { MedianInterval } from './stats';

export type PluginModule = typeof import('../lib');

/**
 * Loads a copy of the plugin: the TypeScript sources when `path` is undefined (through tsx), or a
 * build such as `dist/index.cjs`. lib/ is only loaded when asked for, so a build can be measured
 * while the sources are half-way through a change.
 */
export function loadPlugin(path: string | undefined): PluginModule {
  return createRequire(__filename)(path === undefined ? '../lib' : resolve(path)) as PluginModule;
}

/**
 * A second, separately evaluated copy of a single-file build (its own functions, so V8 compiles
 * and optimises them on their own, as it did the first copy's), or `undefined` for lib/, whose
 * modules a second load would share. axios, opossum and uuid stay shared, as in any process.
 */
export function loadPluginCopy(path: string | undefined): PluginModule | undefined {
  if (path === undefined) return undefined;
  const require = createRequire(__filename);
  const file = require.resolve(resolve(path));
  const first = require.cache[file];
  delete require.cache[file];
  try {
    return require(file) as PluginModule;
  } finally {
    if (first !== undefined) require.cache[file] = first;
  }
}

/**
 * The plugin under test: lib/ through tsx by default, or a build when BENCH_PLUGIN names one
 * (`BENCH_PLUGIN=dist/index.cjs npm run bench:overhead` measures what `npm install` ships).
 */
export const plugin: PluginModule = loadPlugin(process.env.BENCH_PLUGIN);
export const pluginSource = process.env.BENCH_PLUGIN ?? 'lib/ (TypeScript sources through tsx)';
/** The plugin under test loaded again, for the plugin's own A/A control (builds only). */
export const pluginCopy: PluginModule | undefined = loadPluginCopy(process.env.BENCH_PLUGIN);

export interface ServerStats {
  total: number;
  duringOutage: number;
  afterOutage: number;
  firstOkAt: number | undefined;
}

export interface BenchServer {
  url: string;
  /** Starts a 503 outage between the two epoch times. */
  outage(startAt: number, endAt: number): void;
  /** Counts since the last call (or the outage start), then resets them. */
  stats(): Promise<ServerStats>;
  close(): Promise<void>;
}

/** Forks `bench/server.ts` (tsx's loader comes along in execArgv) and waits for its port. */
export function startServer(): Promise<BenchServer> {
  const child: ChildProcess = fork(join(__dirname, 'server.ts'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bench server exited with ${String(code)}`)));
    child.once('message', (message: { type: string; port: number }) => {
      const send = (payload: object): void => {
        child.send(payload);
      };
      resolve({
        url: `http://127.0.0.1:${message.port}`,
        outage: (startAt, endAt) => send({ type: 'outage', startAt, endAt }),
        stats: () =>
          new Promise((done) => {
            child.once('message', (reply: ServerStats & { type: string }) => done(reply));
            send({ type: 'stats' });
          }),
        close: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.disconnect();
          }),
      });
    });
  });
}

export type ContenderName = 'bare axios' | 'axios-resilience' | 'axios-retry' | 'retry-axios';
export const CONTENDERS: readonly ContenderName[] = ['bare axios', 'axios-resilience', 'axios-retry', 'retry-axios'];

export interface Contender {
  name: string;
  http: AxiosInstance;
  close(): Promise<void>;
}

export interface ContenderSetup {
  baseURL: string;
  /** A keep-alive agent for socket runs. */
  agent?: Agent;
  /** An adapter that never touches a socket, for CPU-only runs. */
  adapter?: AxiosAdapter;
  plugin?: RetryPluginOptions;
  axiosRetry?: IAxiosRetryConfig;
  timeoutMs?: number;
}

/** One axios instance per contender, so installing one plugin cannot slow another down. */
export function makeContender(name: ContenderName, setup: ContenderSetup, label: string = name): Contender {
  const http = axios.create({
    baseURL: setup.baseURL,
    ...(setup.agent ? { httpAgent: setup.agent } : {}),
    ...(setup.adapter ? { adapter: setup.adapter } : {}),
    ...(setup.timeoutMs ? { timeout: setup.timeoutMs } : {}),
  });
  let close = (): Promise<void> => Promise.resolve();
  if (name === 'axios-resilience') {
    const instance = plugin.retryPlugin(setup.plugin);
    const eject = instance.install(http);
    close = async () => {
      eject();
      await instance.close();
    };
  } else if (name === 'axios-retry') {
    axiosRetry(http, setup.axiosRetry);
  } else if (name === 'retry-axios') {
    rax.attach(http);
  }
  return { name: label, http, close };
}

export function keepAliveAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 64 });
}

/** An adapter that answers at once, the way a cache or a test double would. */
export const stubAdapter: AxiosAdapter = (config: InternalAxiosRequestConfig) =>
  Promise.resolve({
    data: '{"ok":true}',
    status: 200,
    statusText: 'OK',
    headers: new AxiosHeaders({ 'content-type': 'application/json' }),
    config,
    request: {},
  });

/** Runs `n` calls with `concurrency` in flight; resolves with the elapsed seconds. */
export async function drive(n: number, concurrency: number, call: () => Promise<unknown>): Promise<number> {
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < n) {
      started++;
      await call();
    }
  };
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/** A plain-text table with right-aligned numbers, for the terminal and for pasting into Markdown. */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    '| ' + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ') + ' |';
  const rule = '|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|';
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

export function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '–';
}

export function machine(): string {
  return `${new Date().toISOString()} · node ${process.version} · ${cpus().length} CPUs · ${cpus()[0]?.model ?? 'unknown CPU'}`;
}

/** Shuffles `items` in place (Fisher–Yates) with a seeded source in [0, 1), so a run can be replayed. */
export function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
