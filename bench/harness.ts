/**
 * What every bench shares, written once: the command line (`flags`), the plugin under test and the
 * contenders, forked processes, the child-process server (server.ts), the calls and how they are
 * driven (`Calls`, `pool`), and the report (`main`, `table`, `writeOut`); statistics are in stats.ts.
 * A bench is its contenders and a server set up for its question, inside `main`:
 *
 *   const server = await startServer({ failStatus: 429, failShare: { share: 0.1, seed: 1 } });
 *   const client = connect(resilience('ours', 'axios-resilience'), { baseURL: server.url });
 *   const calls = new Calls(client.http);
 *   await calls.loop(20, Date.now() + 5000); // then read calls.list and await server.stats()
 */
import { fork } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import axios from 'axios';
import type { AxiosAdapter, AxiosError, AxiosInstance, AxiosRequestConfig } from 'axios';
import axiosRetry, { exponentialDelay } from 'axios-retry';
import type { IAxiosRetryConfig } from 'axios-retry';
import * as rax from 'retry-axios';
import type { RetryPluginOptions } from '../lib';
import { CALL_ID } from './call-id';
import type { ServerOptions, ServerStats } from './server';

type Flag = string | number | boolean | undefined;
type Flags<T> = { [K in keyof T]: T[K] extends boolean ? boolean : T[K] extends undefined ? string | undefined : T[K] };

/**
 * The command line, typed by its defaults: a number makes a numeric flag, a boolean a switch, a
 * string a string and `undefined` an optional string. An unknown flag or a flag that is not a
 * number where one is wanted stops the run, rather than measuring something else than asked.
 */
export function flags<T extends Record<string, Flag>>(defaults: T): Flags<T> {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const [name, value] of Object.entries(defaults)) {
    options[name] = { type: typeof value === 'boolean' ? 'boolean' : 'string' };
  }
  const out: Record<string, Flag> = { ...defaults };
  for (const [name, given] of Object.entries(parseArgs({ options }).values)) {
    if (typeof defaults[name] !== 'number') out[name] = given as Flag;
    else if (given === '' || !Number.isFinite(Number(given)))
      throw new TypeError(`--${name} takes a number, not ${String(given)}`);
    else out[name] = Number(given);
  }
  return out as Flags<T>;
}

export type PluginModule = typeof import('../lib');

/** Loads the plugin: lib/ through tsx when `path` is undefined, else a build such as `dist/index.cjs`. */
export function loadPlugin(path: string | undefined): PluginModule {
  return createRequire(__filename)(path === undefined ? '../lib' : resolve(path)) as PluginModule;
}

/** Where the plugin under test comes from: `BENCH_PLUGIN=dist/index.cjs` measures what `npm install` ships. */
export const pluginSource = process.env.BENCH_PLUGIN ?? 'lib/ (TypeScript sources through tsx)';
let underTest: PluginModule | undefined;
/** The plugin under test, loaded on first use, so a process that runs only bare axios never loads it. */
const pluginUnderTest = (): PluginModule => (underTest ??= loadPlugin(process.env.BENCH_PLUGIN));

/** How a contender's instance is set up: where it sends, and what a bench listens on. */
export interface Setup {
  baseURL: string;
  /** The agent for socket runs; without one (and without an adapter) the client makes a keep-alive agent of its own. */
  agent?: Agent;
  /** The instance's adapter (a stub, or a wrapper that counts what is sent). */
  adapter?: AxiosAdapter;
  /** Merged into the plugin's options (hooks a bench listens on); other contenders ignore them. */
  hooks?: RetryPluginOptions;
}

export interface Contender {
  /** Short name, for `--only` and the raw output. */
  key: string;
  label: string;
  /** The plugin's options, when the contender is the plugin. */
  options?: RetryPluginOptions;
  /** Installs the library on `http`; returns what undoes it, if anything has to be. */
  install(http: AxiosInstance, setup: Setup): (() => Promise<void>) | void;
}

/** Bare axios, optionally with something set on the instance (a default header, say). */
export function bare(key = 'bare', label = 'bare axios', prepare?: (http: AxiosInstance) => void): Contender {
  return { key, label, install: (http) => prepare?.(http) };
}

/** The plugin with `options`, from the plugin under test or another build (`load`). */
export function resilience(
  key: string,
  label: string,
  options: RetryPluginOptions = {},
  load = pluginUnderTest,
): Contender {
  return {
    key,
    label,
    options,
    install(http, setup) {
      const retry = load().retryPlugin({ ...options, ...setup.hooks });
      const eject = retry.install(http);
      return async () => void (eject(), await retry.close());
    },
  };
}

export function withAxiosRetry(key: string, label: string, config?: IAxiosRetryConfig): Contender {
  return { key, label, install: (http) => void axiosRetry(http, config) };
}

/** retry-axios, with `config` as the instance's `raxConfig` when given (e.g. `{ retry: 5 }`). */
export function withRetryAxios(key: string, label: string, config?: rax.RetryConfig): Contender {
  return {
    key,
    label,
    install(http) {
      if (config !== undefined) http.defaults.raxConfig = config;
      rax.attach(http);
    },
  };
}

/** Plain axios and the two peers retrying up to 5 times: what a server that pushes back is measured against. */
export function plainAndPeers(): Contender[] {
  const axiosRetried = { retries: 5, retryDelay: exponentialDelay };
  return [
    bare('bare', 'plain axios'),
    withAxiosRetry('axios-retry', 'axios-retry (retries 5, exponentialDelay)', axiosRetried),
    withRetryAxios('retry-axios', 'retry-axios (retry 5)', { retry: 5 }),
  ];
}

/** A fresh axios instance with the contender installed: one per contender, so none slows another. */
export function connect(contender: Contender, setup: Setup): { http: AxiosInstance; close(): Promise<void> } {
  const own = setup.agent === undefined && setup.adapter === undefined ? keepAliveAgent() : undefined;
  const agent = setup.agent ?? own;
  const http = axios.create({
    baseURL: setup.baseURL,
    ...(agent ? { httpAgent: agent } : {}),
    ...(setup.adapter ? { adapter: setup.adapter } : {}),
  });
  const uninstall = contender.install(http, setup);
  return { http, close: async () => void (await uninstall?.(), own?.destroy()) };
}

/** `--only a,b`: the contenders with those keys, and those in `keep` (a reference the figures need). */
export function only(list: Contender[], keys: string | undefined, keep: readonly string[] = []): Contender[] {
  const wanted = [...keep, ...(keys?.split(',') ?? [])];
  return keys === undefined ? list : list.filter((c) => wanted.includes(c.key));
}

export const keepAliveAgent = (): Agent => new Agent({ keepAlive: true, maxSockets: 64 });

/** A forked bench process, spoken to over IPC one question at a time; each answer is its next message. */
export interface Child {
  /** The next message (the first one says the child is ready). */
  reply<T>(): Promise<T>;
  ask<T>(message: object): Promise<T>;
  /** Closes the IPC channel, on which the child cleans up and ends; resolves when it has. */
  close(): Promise<void>;
}

/** Forks `file` with tsx's loader (it comes along in execArgv) and `execArgv`, and only those flags. */
export function forkChild(file: string, argv: string[], execArgv: string[] = []): Child {
  const child = fork(file, argv, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [...process.execArgv, ...execArgv],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const reply = <T>(): Promise<T> =>
    new Promise((done, fail) => {
      const exited = (code: number | null): void => fail(new Error(`${file} ${argv.join(' ')} exited with ${code}`));
      child.once('exit', exited);
      child.once('message', (message) => {
        child.off('exit', exited);
        done(message as T);
      });
    });
  return {
    reply,
    ask<T>(message: object): Promise<T> {
      const answer = reply<T>();
      child.send(message);
      return answer;
    },
    close: () => new Promise((done) => void (child.once('exit', () => done()), child.disconnect())),
  };
}

/**
 * The child side of forkChild: says it is ready, then answers each message with `answer`'s result.
 * The parent closing the channel is the end: `close` undoes what the child set up, then it exits.
 */
export function serveParent<T>(answer: (message: T) => Promise<unknown>, close = async (): Promise<void> => {}): void {
  process.on('message', (message: T) => void answer(message).then((value) => process.send!(value)));
  process.on('disconnect', () => void close().then(() => process.exit(0)));
  process.send!('ready');
}

export interface BenchServer {
  url: string;
  /** Replaces what the server does (see ServerOptions) and zeroes its counts. */
  configure(options: ServerOptions): Promise<void>;
  /** Counts since the last question, then zeroes them. */
  stats(): Promise<ServerStats>;
  close(): Promise<void>;
}

/** Starts bench/server.ts in a process of its own, so its CPU is not the client's. */
export async function startServer(options: ServerOptions = {}): Promise<BenchServer> {
  const child = forkChild(join(__dirname, 'server.ts'), []);
  const { port } = await child.reply<{ port: number }>();
  const server: BenchServer = {
    url: `http://127.0.0.1:${port}`,
    configure: (next) => child.ask({ type: 'configure', options: next }),
    stats: () => child.ask({ type: 'stats' }),
    close: () => child.close(),
  };
  await server.configure(options);
  return server;
}

export const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, Math.max(0, ms)));
export const yieldOnce = (): Promise<void> => new Promise((done) => setImmediate(done));

/** Runs `fn` `count` times, `concurrency` at a time; each worker claims a call before making it, so exactly `count` run. */
export async function pool(count: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < count) await fn(started++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Shuffles `items` in place (Fisher–Yates) with a seeded source, so a run's order can be replayed. */
export function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** One call as the socket benches record it. */
export interface Call {
  id: string;
  tag: string;
  ok: boolean;
  /** Epoch ms it began and ended, and its latency in ms (from the high-resolution clock). */
  began: number;
  at: number;
  ms: number;
  /** `ok`, `HTTP 429`, an error code such as `ERR_CIRCUIT_OPEN`, or `unfinished` (aborted at the run's end). */
  code: string;
}

/** A call sent `atMs` after a run's start, tagged for the figures. */
export type Step = [atMs: number, config: AxiosRequestConfig, tag: string];

/** Sends calls through one client and records each; a call still pending when `abortAt` comes is cut. */
export class Calls {
  readonly list: Call[] = [];
  private readonly stop = new AbortController();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly http: AxiosInstance) {
    // Every pending call and retry wait listens on the one signal.
    setMaxListeners(0, this.stop.signal);
  }

  abortAt(epochMs: number): void {
    this.timer = setTimeout(() => this.stop.abort(), epochMs - Date.now());
  }

  /** Clears the timer and aborts what is left: nothing a run sent outlives it. */
  finish(): void {
    clearTimeout(this.timer);
    this.stop.abort();
  }

  async send(config: AxiosRequestConfig = { url: '/r' }, tag = ''): Promise<Call> {
    const call: Call = {
      id: String(this.list.length + 1),
      tag,
      ok: false,
      began: Date.now(),
      at: 0,
      ms: 0,
      code: 'ok',
    };
    this.list.push(call);
    const t0 = performance.now();
    try {
      await this.http.request({ ...config, headers: { [CALL_ID]: call.id }, signal: this.stop.signal });
      call.ok = true;
    } catch (error) {
      const { code, response } = error as AxiosError;
      const refused = response !== undefined && code?.startsWith('ERR_BAD_');
      call.code = this.stop.signal.aborted ? 'unfinished' : refused ? `HTTP ${response.status}` : (code ?? 'error');
    }
    call.ms = performance.now() - t0;
    call.at = Date.now();
    return call;
  }

  /**
   * `callers` closed-loop callers of `GET /r` until `endAt` (epoch ms), `rest` after each call. By
   * default a failed call backs off 1 ms: a plain client that fails at once would otherwise spin,
   * and real callers back off a little.
   */
  async loop(callers: number, endAt: number, rest = (c: Call) => (c.ok ? undefined : pause(1))): Promise<void> {
    const caller = async (): Promise<void> => {
      while (Date.now() < endAt && !this.stop.signal.aborted) await rest(await this.send());
    };
    await Promise.all(Array.from({ length: callers }, caller));
  }

  /** Open loop: each step sent `atMs` after `start`, whatever the calls before it are doing. */
  async schedule(steps: readonly Step[], start: number): Promise<void> {
    const pending: Array<Promise<Call>> = [];
    for (const [atMs, config, tag] of steps) {
      if (start + atMs > Date.now()) await pause(start + atMs - Date.now());
      pending.push(this.send(config, tag));
    }
    await Promise.all(pending);
  }
}

/** Writes `text` to `path` (a chart, a record of the run) and says so. */
export function writeOut(path: string | undefined, text: string, what: string): void {
  if (path === undefined) return;
  writeFileSync(path, text);
  console.log(`\n${what} written to ${path}`);
}

/** A Markdown table for the terminal and for pasting: the first `text` columns left-aligned, numbers right. */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>, text = 1): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    '| ' + cells.map((c, i) => (i < text ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ') + ' |';
  const rule = '|' + widths.map((w, i) => (i < text ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|';
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

export const fixed = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : '–');

export const loadAverage = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** The date, Node, the CPUs and the load average: figures from a shared machine need them. */
export function machine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return `${new Date().toISOString()} · node ${process.version} · ${cpus().length} CPUs · ${cpu} · load average ${loadAverage()}`;
}

/**
 * Runs a bench: the first lines of every report (which bench, where, which plugin, with what
 * settings), then `body`, then the time it took and the load average; a failure sets the exit code.
 */
export function main(name: string, settings: string, body: () => Promise<void>): void {
  const startedAt = Date.now();
  console.log(`# bench:${name}  (${machine()})`);
  console.log(`axios-resilience from ${pluginSource}; ${settings}\n`);
  body()
    .then(() =>
      console.log(`\n${((Date.now() - startedAt) / 1000).toFixed(0)} s; load average at the end ${loadAverage()}`),
    )
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
