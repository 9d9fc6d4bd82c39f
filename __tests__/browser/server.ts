/**
 * The browser suite's HTTP server: one `node:http` server per origin. It serves a built app (static
 * files) and scripted API routes under `/api/`, records every request it receives (preflights
 * included), and answers CORS the way the test configures it, so a test can compare what the page
 * saw with what the server saw.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

/** How the server answers cross-origin requests; absent: no CORS headers at all. */
export interface CorsPolicy {
  /** `Access-Control-Allow-Origin`. */
  allowOrigin: string;
  /** `Access-Control-Allow-Headers` in the preflight answer. */
  allowHeaders: string[];
  /** `Access-Control-Expose-Headers` on every answer. */
  exposeHeaders?: string[];
  /** `Access-Control-Max-Age` in the preflight answer, in seconds; absent: not sent. */
  maxAgeS?: number;
}

/**
 * What the server does with the nth request to a route (the last step repeats).
 * - a number: that status, with a small JSON body;
 * - `status` with `headers`, `delayMs` (answer late), `cors: false` (leave the CORS headers off);
 * - `'reset'`: destroy the socket without answering;
 * - `'commit-reset'`: store the payment under the request's Idempotency-Key, then destroy the socket;
 * - `{ commit: status }`: store the payment (or find the one stored under the key) and answer with it.
 */
export type Step =
  | number
  | { status: number; headers?: Record<string, string>; delayMs?: number; cors?: false }
  | 'reset'
  | 'commit-reset'
  | { commit: number };

export interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The body exactly as it arrived (chunked framing removed by Node, nothing else). */
  body: Buffer;
  /** ms since the server started. */
  at: number;
}

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /**
   * Scripts `path` (under `/api/`); returns its full URL. `by: 'attempt'`: the step for a request is
   * the one for its attempt number as the plugin's `attemptHeader: true` states it (`2; hedge` takes
   * the second step), not for its place in arrival order: a hedge sent after its first copy can
   * reach the server first on a busy machine.
   */
  route(path: string, steps: Step[], by?: 'arrival' | 'attempt'): string;
  /** Requests to `path` other than preflights, in arrival order. */
  requests(path: string): Seen[];
  /** `OPTIONS` preflights to `path`. */
  preflights(path: string): Seen[];
  /** Payments stored by `path`'s commit steps, by Idempotency-Key. */
  payments(path: string): Map<string, { id: string }>;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export interface ServerOptions {
  /** Directory served for `GET` of anything outside `/api/` (`/` is its index.html). */
  staticDir?: string;
  cors?: CorsPolicy;
  /**
   * `false`: `Connection: close` on every answer. Chromium re-sends a request by itself when a
   * reused connection drops before the answer; with no reuse, every reset reaches the page.
   */
  keepAlive?: false;
}

export async function startServer(options: ServerOptions = {}): Promise<TestServer> {
  const t0 = Date.now();
  const scripts = new Map<string, Step[]>();
  const byAttempt = new Set<string>();
  const seen = new Map<string, Seen[]>();
  const stores = new Map<string, Map<string, { id: string }>>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const { cors } = options;

  const corsHeaders = (): Record<string, string> => {
    if (cors === undefined) return {};
    const headers: Record<string, string> = { 'access-control-allow-origin': cors.allowOrigin, vary: 'Origin' };
    if (cors.exposeHeaders !== undefined) headers['access-control-expose-headers'] = cors.exposeHeaders.join(', ');
    return headers;
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      ...headers,
    });
    res.end(text);
  };

  const serveStatic = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = options.staticDir && normalize(join(options.staticDir, path === '/' ? 'index.html' : path));
    if (!file || !file.startsWith(normalize(options.staticDir!))) return send(res, 404, { error: 'not found' }, {});
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      // The browser asks for /favicon.ico on its own; an empty answer keeps its console quiet.
      res.writeHead(path === '/favicon.ico' ? 204 : 404);
      res.end();
    }
  };

  const handleApi = (req: IncomingMessage, res: ServerResponse, path: string, body: Buffer): void => {
    const method = req.method ?? 'GET';
    const list = seen.get(path) ?? [];
    seen.set(path, list);
    list.push({ method, path, headers: req.headers, body, at: Date.now() - t0 });

    if (method === 'OPTIONS' && cors !== undefined) {
      const headers: Record<string, string> = {
        ...corsHeaders(),
        'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
        'access-control-allow-headers': cors.allowHeaders.join(', '),
      };
      if (cors.maxAgeS !== undefined) headers['access-control-max-age'] = String(cors.maxAgeS);
      res.writeHead(204, headers);
      res.end();
      return;
    }

    const steps = scripts.get(path);
    if (steps === undefined) return send(res, 404, { error: `no route ${path}` }, corsHeaders());
    const n = list.filter((s) => s.method !== 'OPTIONS').length;
    const attempt = byAttempt.has(path) ? Number.parseInt(String(req.headers['x-retry-attempt']), 10) : n;
    if (!(attempt >= 1)) return send(res, 400, { error: 'X-Retry-Attempt required' }, corsHeaders());
    const step = steps[Math.min(attempt, steps.length) - 1]!;
    const keyHeader = req.headers['idempotency-key'];
    const key = typeof keyHeader === 'string' ? keyHeader : undefined;
    const store = stores.get(path) ?? new Map<string, { id: string }>();
    stores.set(path, store);

    if (step === 'reset') {
      req.socket.destroy();
      return;
    }
    if (step === 'commit-reset' || (typeof step === 'object' && 'commit' in step)) {
      if (key === undefined) return send(res, 400, { error: 'Idempotency-Key required' }, corsHeaders());
      const stored = store.get(key);
      if (stored === undefined) store.set(key, { id: `pay_${store.size + 1}` });
      if (step === 'commit-reset') {
        req.socket.destroy();
        return;
      }
      const replayed = stored !== undefined;
      return send(res, replayed ? 200 : step.commit, store.get(key), {
        ...corsHeaders(),
        ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
      });
    }
    const {
      status,
      headers = {},
      delayMs = 0,
      cors: withCors = true,
    } = typeof step === 'number' ? { status: step } : step;
    const answer = (): void => send(res, status, { status, n }, { ...(withCors ? corsHeaders() : {}), ...headers });
    if (delayMs === 0) return answer();
    const timer = setTimeout(() => {
      timers.delete(timer);
      answer();
    }, delayMs);
    timers.add(timer);
    // The client gave up (timeout, abort, deadline): drop the answer it will never read.
    res.on('close', () => {
      clearTimeout(timer);
      timers.delete(timer);
    });
  };

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (options.keepAlive === false) res.setHeader('connection', 'close');
    // Read the whole body first, so a reset happens after the request has fully arrived.
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (path.startsWith('/api/')) handleApi(req, res, path, Buffer.concat(chunks));
      else void serveStatic(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    route(path, steps, by = 'arrival') {
      if (!path.startsWith('/api/')) throw new Error(`route ${path}: API routes live under /api/`);
      scripts.set(path, steps);
      if (by === 'attempt') byAttempt.add(path);
      else byAttempt.delete(path);
      return origin + path;
    },
    requests: (path) => (seen.get(path) ?? []).filter((s) => s.method !== 'OPTIONS'),
    preflights: (path) => (seen.get(path) ?? []).filter((s) => s.method === 'OPTIONS'),
    payments: (path) => stores.get(path) ?? new Map(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
