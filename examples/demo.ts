/**
 * `npm run demo`: a flaky HTTP server on 127.0.0.1 (random free port) and axios-resilience working
 * against it, scenario by scenario, with a timeline of every attempt and a summary at the end.
 * Exits 0 only when every scenario behaved as expected.
 *
 * `runDemo({ quiet: true, ... })` runs the same scenarios without output (and, with smaller
 * delays, fast) and returns what happened, so a test can check them.
 */
import { Agent, createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import axios, { getAdapter } from 'axios';
import type { AxiosAdapter, AxiosInstance, InternalAxiosRequestConfig } from 'axios';
import { CircuitOpenError, retryPlugin } from '../lib';
import type { RetryEvent, RetryPluginOptions, StopReason } from '../lib';

export interface DemoOptions {
  /** No output at all. @default false */
  quiet?: boolean;
  /** Where the timeline goes. @default process.stdout */
  out?: NodeJS.WriteStream | NodeJS.WritableStream;
  /** Backoff base of every scenario, in ms. @default 200 */
  baseDelayMs?: number;
  /** The cap on any wait; below 2000 it clamps the 429's `Retry-After: 2`. @default 30000 */
  maxDelayMs?: number;
  /** The client timeout of the slow-response scenario, in ms. @default 1000 */
  timeoutMs?: number;
  /** How long the slow endpoint takes to answer its first request, in ms. @default 3000 */
  slowMs?: number;
  /** The breaker's reset timeout in the outage scenario, in ms. @default 1000 */
  resetTimeoutMs?: number;
}

/** What one scenario did, and whether that is what it should have done. */
export interface ScenarioResult {
  name: string;
  expected: string;
  observed: string;
  passed: boolean;
  /** Requests the server received during the scenario. */
  serverRequests: number;
  /** Each logical call of the scenario, in order. */
  calls: CallRecord[];
  /** What the server ended up with, where that is the point (payments committed, keys seen). */
  facts: Record<string, number | string | boolean>;
  elapsedMs: number;
}

export interface CallRecord {
  ok: boolean;
  status?: number;
  attempts: number;
  delaysMs: number[];
  delaySources: Array<RetryEvent['delaySource']>;
  /** What each attempt ended with: a status (`'503'`) or an error code (`'ECONNRESET'`). */
  outcomes: string[];
  idempotencyKey?: string;
  stopReason?: StopReason;
  circuitOpen: boolean;
}

export interface DemoResult {
  passed: boolean;
  scenarios: ScenarioResult[];
  elapsedMs: number;
}

// ---------------------------------------------------------------------------------------------
// The flaky server

interface Seen {
  method: string;
  path: string;
  key: string | undefined;
}

interface FlakyServer {
  url: string;
  seen: Seen[];
  /** Payments committed, by Idempotency-Key. */
  payments: Map<string, { id: string; amount: number }>;
  /** While true, /outage answers 503. */
  down: boolean;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function startFlakyServer(options: Required<Omit<DemoOptions, 'quiet' | 'out'>>): Promise<FlakyServer> {
  const hits = new Map<string, number>();
  const state: Omit<FlakyServer, 'url' | 'close'> = { seen: [], payments: new Map(), down: true };
  const handle = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    const path = req.url ?? '/';
    const keyHeader = req.headers['idempotency-key'];
    const key = Array.isArray(keyHeader) ? keyHeader[0] : keyHeader;
    state.seen.push({ method: req.method ?? 'GET', path, key });
    const n = (hits.get(path) ?? 0) + 1;
    hits.set(path, n);
    switch (path) {
      case '/flaky':
        if (n <= 2) return json(res, 503, { error: 'warming up' });
        return json(res, 200, { ok: true });
      case '/rate-limited':
        if (n === 1) return json(res, 429, { error: 'slow down' }, { 'retry-after': '2' });
        return json(res, 200, { ok: true });
      case '/slow': {
        if (n > 1) return json(res, 200, { ok: true });
        const timer = setTimeout(() => json(res, 200, { ok: true, late: true }), options.slowMs);
        // The client gives up first; drop the answer it will never read.
        res.on('close', () => clearTimeout(timer));
        return;
      }
      case '/payments': {
        if (key === undefined) return json(res, 400, { error: 'Idempotency-Key required' });
        const done = state.payments.get(key);
        if (done !== undefined) return json(res, 200, done, { 'idempotent-replayed': 'true' });
        const amount = (JSON.parse(body || '{}') as { amount?: number }).amount ?? 0;
        state.payments.set(key, { id: `pay_${state.payments.size + 1}`, amount });
        // Committed, and then the connection dies before the answer leaves.
        req.socket.destroy();
        return;
      }
      case '/outage':
        if (state.down) return json(res, 503, { error: 'down for maintenance' });
        return json(res, 200, { ok: true });
      default:
        return json(res, 404, { error: 'not found' });
    }
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handle(req, res, body));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve(
        Object.assign(state, {
          url: `http://127.0.0.1:${port}`,
          close: () =>
            new Promise<void>((done) => {
              server.closeAllConnections();
              server.close(() => done());
            }),
        }),
      );
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Output: timeline lines and a live progress line

const BOLD = (s: string): string => `\x1b[1m${s}\x1b[22m`;
const DIM = (s: string): string => `\x1b[2m${s}\x1b[22m`;

class Printer {
  private timer: ReturnType<typeof setInterval> | undefined;
  private live = false;
  readonly color: boolean;
  readonly tty: boolean;

  constructor(
    private readonly out: NodeJS.WritableStream | undefined,
    private readonly t0: number,
  ) {
    this.tty = out !== undefined && (out as NodeJS.WriteStream).isTTY === true;
    this.color = this.tty && process.env.NO_COLOR === undefined;
  }

  offset(): string {
    return `+${((Date.now() - this.t0) / 1000).toFixed(3)}s`;
  }

  line(text: string): void {
    if (this.out === undefined) return;
    this.stopProgress();
    this.out.write(text + '\n');
  }

  bold(text: string): string {
    return this.color ? BOLD(text) : text;
  }

  dim(text: string): string {
    return this.color ? DIM(text) : text;
  }

  /** A line rewritten in place every 100 ms until the next timeline line; TTY only. */
  progress(render: (elapsedMs: number) => string): void {
    if (!this.tty || this.out === undefined) return;
    this.stopProgress();
    const started = Date.now();
    const out = this.out;
    const draw = (): void => {
      out.write(`\r\x1b[K${this.dim(render(Date.now() - started))}`);
      this.live = true;
    };
    draw();
    this.timer = setInterval(draw, 100);
  }

  stopProgress(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.live) this.out?.write('\r\x1b[K');
    this.live = false;
  }
}

function bar(fraction: number, width = 20): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}

// ---------------------------------------------------------------------------------------------
// One client per scenario, with a logging adapter under the plugin

interface Recorder {
  call<T>(send: (http: AxiosInstance) => Promise<T>): Promise<CallRecord>;
  close(): Promise<void>;
}

const httpAdapter: AxiosAdapter = getAdapter('http');

function errorCode(error: unknown): string {
  const e = error as { code?: string; response?: { status?: number } };
  if (e.response?.status !== undefined) return String(e.response.status);
  return e.code ?? 'error';
}

function recorder(
  printer: Printer,
  baseURL: string,
  options: RetryPluginOptions,
  axiosConfig: { timeout?: number } = {},
): Recorder {
  let current: CallRecord | undefined;
  const notes: string[] = [];
  const flushNotes = (): void => {
    for (const note of notes.splice(0)) printer.line(`  ${printer.bold(note)}`);
  };
  // The attempt that just ended, printed once the plugin has decided what comes next.
  let pending: { at: string; method: string; path: string; attempt: number; outcome: string; key?: string } | undefined;

  const describe = (p: NonNullable<typeof pending>): string => {
    const key = p.key === undefined ? '' : `  key ${p.key.slice(0, 8)}…`;
    return `  ${p.at.padStart(8)}  ${p.method.padEnd(4)} ${p.path.padEnd(13)} attempt ${p.attempt}  ${p.outcome.padEnd(12)}${key}`;
  };

  const logging: AxiosAdapter = async (config: InternalAxiosRequestConfig) => {
    const attempt = config.retryState?.attempts ?? 1;
    const method = (config.method ?? 'get').toUpperCase();
    const path = config.url ?? '';
    const key = config.retryState?.idempotencyKey;
    printer.progress(
      (ms) => `            ${method} ${path} attempt ${attempt}: waiting for the response ${(ms / 1000).toFixed(1)} s`,
    );
    const base = { method, path, attempt, ...(key === undefined ? {} : { key }) };
    try {
      const response = await httpAdapter(config);
      printer.stopProgress();
      pending = { ...base, at: printer.offset(), outcome: `${response.status}` };
      current?.outcomes.push(String(response.status));
      return response;
    } catch (error) {
      printer.stopProgress();
      const outcome = errorCode(error);
      pending = { ...base, at: printer.offset(), outcome };
      current?.outcomes.push(outcome);
      throw error;
    }
  };

  const http = axios.create({
    baseURL,
    adapter: logging,
    httpAgent: new Agent({ keepAlive: false }),
    ...axiosConfig,
  });
  const plugin = retryPlugin({
    ...options,
    // Printed after the attempt that caused the change, once that attempt's line is out.
    onCircuitStateChange: (change) => {
      notes.push(`${printer.offset().padStart(8)}  ⚡ breaker ${change.state} (${change.origin})`);
      if (current === undefined) flushNotes();
    },
    onRetry: (event) => {
      current?.delaySources.push(event.delaySource);
      const why =
        event.delaySource === 'retry-after'
          ? `Retry-After: ${String(event.error.response?.headers['retry-after'])} s${event.delayMs < Number(event.error.response?.headers['retry-after']) * 1000 ? ', clamped to maxDelayMs' : ''}`
          : 'backoff, full jitter';
      if (pending) printer.line(`${describe(pending)}  → retry in ${event.delayMs} ms (${why})`);
      pending = undefined;
      flushNotes();
      const total = event.delayMs;
      printer.progress(
        (ms) =>
          `            ${bar(ms / Math.max(1, total))} waiting ${(ms / 1000).toFixed(1)} of ${(total / 1000).toFixed(1)} s (${why})`,
      );
    },
  });
  plugin.install(http);

  return {
    async call(send) {
      const record: CallRecord = {
        ok: false,
        attempts: 0,
        delaysMs: [],
        delaySources: [],
        outcomes: [],
        circuitOpen: false,
      };
      current = record;
      try {
        const response = await send(http);
        const { status, config } = response as { status: number; config: InternalAxiosRequestConfig };
        Object.assign(record, { ok: true, status });
        const state = config.retryState;
        if (state) {
          record.attempts = state.attempts;
          record.delaysMs = [...state.delaysMs];
          if (state.idempotencyKey !== undefined) record.idempotencyKey = state.idempotencyKey;
        }
        const replay = (response as { headers: Record<string, unknown> }).headers['idempotent-replayed']
          ? ', replayed'
          : '';
        if (pending) printer.line(`${describe(pending)}  ${printer.bold('✓')} done${replay}`);
      } catch (error) {
        const config = (error as { config?: InternalAxiosRequestConfig }).config;
        const state = config?.retryState;
        record.circuitOpen = error instanceof CircuitOpenError;
        if (state) {
          record.attempts = state.attempts;
          record.delaysMs = [...state.delaysMs];
          if (state.idempotencyKey !== undefined) record.idempotencyKey = state.idempotencyKey;
          if (state.stopReason !== undefined) record.stopReason = state.stopReason;
        }
        const why = `gave up: ${record.stopReason ?? 'error'}`;
        if (pending) printer.line(`${describe(pending)}  ✗ ${why}`);
        else {
          const method = (config?.method ?? 'get').toUpperCase();
          const path = config?.url ?? '';
          printer.line(
            `  ${printer.offset().padStart(8)}  ${method.padEnd(4)} ${path.padEnd(13)} not sent   ${''.padEnd(12)}  ✗ ${why} (${(error as Error).name})`,
          );
        }
      } finally {
        flushNotes();
        pending = undefined;
        current = undefined;
        printer.stopProgress();
      }
      return record;
    },
    async close() {
      await plugin.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The scenarios

interface Context {
  server: FlakyServer;
  printer: Printer;
  options: Required<Omit<DemoOptions, 'quiet' | 'out'>>;
}

type Outcome = Omit<ScenarioResult, 'name' | 'serverRequests' | 'elapsedMs'>;

interface Scenario {
  name: string;
  intro(options: Context['options']): string;
  run(ctx: Context): Promise<Outcome>;
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** `['a', 'a', 'b']` → `'a ×2, b'`, with the stop reasons shortened to their first word. */
function short(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r.split('-')[0]!, (counts.get(r.split('-')[0]!) ?? 0) + 1);
  return [...counts].map(([r, n]) => (n > 1 ? `${r} ×${n}` : r)).join(', ');
}

const SCENARIOS: Scenario[] = [
  {
    name: '503, 503, 200',
    intro: () => 'GET /flaky answers 503 twice, then 200: two backoff waits, then success.',
    async run({ server, printer, options }) {
      const r = recorder(printer, server.url, { baseDelayMs: options.baseDelayMs, maxDelayMs: options.maxDelayMs });
      const call = await r.call((http) => http.get('/flaky'));
      await r.close();
      const passed =
        call.ok &&
        call.attempts === 3 &&
        call.outcomes.join(',') === '503,503,200' &&
        call.delaySources.every((s) => s === 'backoff');
      return {
        expected: '503 503 200, backoff',
        observed: `${call.outcomes.join(' ')}, waits ${call.delaysMs.join(' + ')} ms`,
        passed,
        calls: [call],
        facts: {},
      };
    },
  },
  {
    name: '429 with Retry-After: 2',
    intro: (o) =>
      `GET /rate-limited answers 429 with Retry-After: 2 once; the server's word beats the backoff` +
      (o.maxDelayMs < 2000 ? ` (clamped to maxDelayMs = ${o.maxDelayMs} ms).` : '.'),
    async run({ server, printer, options }) {
      const r = recorder(printer, server.url, { baseDelayMs: options.baseDelayMs, maxDelayMs: options.maxDelayMs });
      const call = await r.call((http) => http.get('/rate-limited'));
      await r.close();
      const want = Math.min(2000, options.maxDelayMs);
      // The wait is the origin's pause, as the clock measured it from the retry's decision: the pause
      // began a moment before (at the 429), and the timer that ends it may fire late.
      const waited = call.delaysMs[0] ?? -1;
      const passed = call.ok && call.attempts === 2 && waited >= want - 20 && call.delaySources[0] === 'retry-after';
      return {
        expected: `429 200, wait ${want} ms (Retry-After)`,
        observed: `${call.outcomes.join(' ')}, wait ${call.delaysMs.join(', ')} ms (${call.delaySources.join(', ')})`,
        passed,
        calls: [call],
        facts: {},
      };
    },
  },
  {
    name: 'slower than the client timeout',
    intro: (o) =>
      `GET /slow takes ${o.slowMs} ms the first time; the client timeout is ${o.timeoutMs} ms. A timed-out GET is retried.`,
    async run({ server, printer, options }) {
      const r = recorder(
        printer,
        server.url,
        { baseDelayMs: options.baseDelayMs, maxDelayMs: options.maxDelayMs },
        { timeout: options.timeoutMs },
      );
      const call = await r.call((http) => http.get('/slow'));
      await r.close();
      const passed =
        call.ok && call.attempts === 2 && call.outcomes[0] === 'ECONNABORTED' && call.outcomes[1] === '200';
      return {
        expected: 'ECONNABORTED 200',
        observed: call.outcomes.join(' '),
        passed,
        calls: [call],
        facts: {},
      };
    },
  },
  {
    name: 'payment POST, reset after commit',
    intro: () =>
      'POST /payments: the server commits the payment, then the connection is reset before the answer. ' +
      'This server stores Idempotency-Keys and the client says so (serverDedupes), so the retry carries ' +
      'the same key and the server replays the stored result.',
    async run({ server, printer, options }) {
      const r = recorder(printer, server.url, {
        baseDelayMs: options.baseDelayMs,
        maxDelayMs: options.maxDelayMs,
        idempotencyKey: { serverDedupes: [server.url] },
      });
      const call = await r.call((http) => http.post('/payments', { amount: 4200, currency: 'EUR' }));
      await r.close();
      const sent = server.seen.filter((s) => s.path === '/payments');
      const sameKey = sent.length === 2 && sent.every((s) => s.key !== undefined && s.key === call.idempotencyKey);
      const passed =
        call.ok && call.attempts === 2 && call.outcomes[0] === 'ECONNRESET' && sameKey && server.payments.size === 1;
      return {
        expected: 'ECONNRESET 200, same key, 1 payment',
        observed: `${call.outcomes.join(' ')}, ${sameKey ? 'same key' : 'keys differ'}, ${server.payments.size} payment(s)`,
        passed,
        calls: [call],
        facts: { payments: server.payments.size, keysSent: new Set(sent.map((s) => s.key)).size, sameKey },
      };
    },
  },
  {
    name: 'outage: budget and breaker',
    intro: (o) =>
      'GET /outage answers 503 to everything. Budget: 2 retries + 10 % of first attempts; breaker: opens at ' +
      `> 50 % failed calls once 3 calls are seen, first open wait ${o.resetTimeoutMs} ms (±25 %). Five calls, ` +
      'then the server recovers and one more.',
    async run({ server, printer, options }) {
      // A budget of 2 retries however quiet the client (0.2/s over 10 s) plus 10 % of first attempts,
      // and a breaker that counts calls and may open from the 3rd: small enough to see both within 5 calls.
      const r = recorder(printer, server.url, {
        baseDelayMs: options.baseDelayMs,
        maxDelayMs: options.maxDelayMs,
        budget: { ratio: 0.1, minPerSecond: 0.2, windowMs: 10_000 },
        breaker: { volumeThreshold: 3, errorThresholdPercentage: 50, resetTimeout: options.resetTimeoutMs },
      });
      // The first open wait is jittered by ±25 %.
      const openWaitMs = Math.ceil(options.resetTimeoutMs * 1.25);
      server.down = true;
      const calls: CallRecord[] = [];
      for (let i = 0; i < 5; i++) calls.push(await r.call((http) => http.get('/outage')));
      const sentDuringOutage = server.seen.filter((s) => s.path === '/outage').length;
      server.down = false;
      printer.line(
        printer.dim(`            (server is back; waiting out the breaker's open wait, at most ${openWaitMs} ms)`),
      );
      printer.progress((ms) => `            ${bar(ms / openWaitMs)} breaker open, ${(ms / 1000).toFixed(1)} s`);
      await sleep(openWaitMs + 50);
      calls.push(await r.call((http) => http.get('/outage')));
      await r.close();
      const reasons = calls.slice(0, 5).map((c) => c.stopReason ?? '-');
      const probe = calls[5]!;
      const passed =
        reasons.join(',') === 'budget-exhausted,budget-exhausted,budget-exhausted,circuit-open,circuit-open' &&
        calls[4]!.attempts === 0 &&
        calls[4]!.circuitOpen &&
        sentDuringOutage === 5 &&
        probe.ok &&
        probe.attempts === 1;
      return {
        expected: 'budget ×3, circuit ×2, 5 sent; probe 200',
        observed: `${short(reasons)}, ${sentDuringOutage} sent; probe ${probe.ok ? String(probe.status) : 'failed'}`,
        passed,
        calls,
        facts: { sentDuringOutage },
      };
    },
  },
];

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

function summary(results: ScenarioResult[]): string {
  const rows = results.map((r, i) => [`${i + 1}. ${r.name}`, r.expected, r.observed, r.passed ? 'pass' : 'FAIL']);
  const headers = ['scenario', 'expected', 'observed', ''];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [line(headers), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Runs every scenario against a fresh flaky server and reports what each did. */
export async function runDemo(input: DemoOptions = {}): Promise<DemoResult> {
  const options = {
    baseDelayMs: input.baseDelayMs ?? 200,
    maxDelayMs: input.maxDelayMs ?? 30_000,
    timeoutMs: input.timeoutMs ?? 1000,
    slowMs: input.slowMs ?? 3000,
    resetTimeoutMs: input.resetTimeoutMs ?? 1000,
  };
  const t0 = Date.now();
  const out = input.quiet ? undefined : (input.out ?? process.stdout);
  const printer = new Printer(out, t0);
  const server = await startFlakyServer(options);
  const results: ScenarioResult[] = [];
  printer.line(printer.bold(`axios-resilience demo · flaky server at ${server.url}`));
  try {
    for (const [i, scenario] of SCENARIOS.entries()) {
      printer.line('');
      printer.line(printer.bold(`${i + 1}. ${scenario.name}`));
      for (const text of wrap(scenario.intro(options), 100)) printer.line(printer.dim(`   ${text}`));
      const before = server.seen.length;
      const started = Date.now();
      const outcome = await scenario.run({ server, printer, options });
      results.push({
        name: scenario.name,
        ...outcome,
        serverRequests: server.seen.length - before,
        elapsedMs: Date.now() - started,
      });
    }
  } finally {
    printer.stopProgress();
    await server.close();
  }
  const passed = results.every((r) => r.passed);
  const elapsedMs = Date.now() - t0;
  printer.line('');
  printer.line(summary(results));
  printer.line('');
  printer.line(
    passed
      ? `All ${results.length} scenarios behaved as expected (${(elapsedMs / 1000).toFixed(1)} s).`
      : `${results.filter((r) => !r.passed).length} scenario(s) did not behave as expected.`,
  );
  return { passed, scenarios: results, elapsedMs };
}

if (require.main === module) {
  runDemo().then(
    (result) => {
      process.exitCode = result.passed ? 0 : 1;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
