/**
 * `npm run demo:browser`: the five scenarios of `npm run demo`, in a browser. A server on
 * 127.0.0.1 serves a page (examples/browser/page.ts, bundled with esbuild at start) and the same
 * flaky API as the terminal demo; the page runs every scenario over axios's `xhr` and `fetch`
 * adapters side by side and draws each call as a live timeline: attempts, waits, breaker state.
 *
 * `PORT=8080 npm run demo:browser` picks the port (default: a free one). Query parameters change
 * the timings, e.g. `/?base=20&max=300&timeout=300&slow=3000&reset=400` (the browser tests do).
 *
 * The page imports the plugin from this repository's sources; in your app it is
 * `import { retryPlugin } from 'axios-resilience'`.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

export interface BrowserDemo {
  /** The page, e.g. `http://127.0.0.1:41234/`. */
  url: string;
  close(): Promise<void>;
}

/** One page run of one adapter: the API's state, kept apart from every other run. */
interface Run {
  hits: Map<string, number>;
  /** Payments committed, by Idempotency-Key. */
  payments: Map<string, { id: string; amount: number }>;
  /** Idempotency-Keys the payment route received, in order. */
  keys: string[];
  /** While true, /outage answers 503. */
  down: boolean;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

async function bundlePage(): Promise<string> {
  const result = await build({
    entryPoints: [join(__dirname, 'page.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

export async function startBrowserDemo(options: { port?: number } = {}): Promise<BrowserDemo> {
  const [html, script] = await Promise.all([readFile(join(__dirname, 'index.html'), 'utf8'), bundlePage()]);
  const runs = new Map<string, Run>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const runOf = (id: string): Run => {
    let run = runs.get(id);
    if (run === undefined) {
      run = { hits: new Map(), payments: new Map(), keys: [], down: true };
      runs.set(id, run);
    }
    return run;
  };

  const api = (req: IncomingMessage, res: ServerResponse, run: Run, route: string, body: string): void => {
    const n = (run.hits.get(route) ?? 0) + 1;
    run.hits.set(route, n);
    const slowMs = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('slow') ?? 3000);
    switch (route) {
      case 'flaky':
        return n <= 2 ? json(res, 503, { error: 'warming up' }) : json(res, 200, { ok: true });
      case 'rate-limited':
        return n === 1 ? json(res, 429, { error: 'slow down' }, { 'retry-after': '2' }) : json(res, 200, { ok: true });
      case 'slow': {
        if (n > 1) return json(res, 200, { ok: true });
        const timer = setTimeout(() => {
          timers.delete(timer);
          json(res, 200, { ok: true, late: true });
        }, slowMs);
        timers.add(timer);
        // The client gives up first; drop the answer it will never read.
        res.on('close', () => {
          clearTimeout(timer);
          timers.delete(timer);
        });
        return;
      }
      case 'payments': {
        const header = req.headers['idempotency-key'];
        const key = typeof header === 'string' ? header : undefined;
        if (key === undefined) return json(res, 400, { error: 'Idempotency-Key required' });
        run.keys.push(key);
        const done = run.payments.get(key);
        if (done !== undefined) return json(res, 200, done, { 'idempotent-replayed': 'true' });
        const amount = (JSON.parse(body || '{}') as { amount?: number }).amount ?? 0;
        run.payments.set(key, { id: `pay_${run.payments.size + 1}`, amount });
        // Committed, and then the connection dies before the answer leaves.
        req.socket.destroy();
        return;
      }
      case 'outage':
        return run.down ? json(res, 503, { error: 'down for maintenance' }) : json(res, 200, { ok: true });
      default:
        return json(res, 404, { error: 'not found' });
    }
  };

  const server = createServer((req, res) => {
    // One connection per request: Chromium re-sends a request by itself when a reused connection
    // drops before the answer, which would hide the payment scenario's reset from the page.
    res.setHeader('connection', 'close');
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const parts = url.pathname.split('/').filter(Boolean);
      if (url.pathname === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        return res.end(html);
      }
      if (url.pathname === '/page.js') {
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
        return res.end(script);
      }
      // /api/<run>/<route>: the flaky API. /control/<run>/facts and /control/<run>/recover: for the page.
      if (parts.length === 3 && parts[0] === 'api') return api(req, res, runOf(parts[1]!), parts[2]!, body);
      if (parts.length === 3 && parts[0] === 'control') {
        const run = runOf(parts[1]!);
        if (parts[2] === 'recover' && req.method === 'POST') {
          run.down = false;
          return json(res, 200, { down: false });
        }
        if (parts[2] === 'facts') {
          return json(res, 200, {
            hits: Object.fromEntries(run.hits),
            payments: run.payments.size,
            keys: run.keys,
          });
        }
      }
      if (url.pathname === '/favicon.ico') {
        res.writeHead(204);
        return res.end();
      }
      return json(res, 404, { error: 'not found' });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (require.main === module) {
  const port = process.env.PORT === undefined ? 0 : Number(process.env.PORT);
  startBrowserDemo({ port }).then(
    (demo) => {
      console.log(`axios-resilience browser demo: open ${demo.url}  (Ctrl-C to stop)`);
      const stop = (): void => {
        void demo.close().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
