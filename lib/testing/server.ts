import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { RecordedRequest } from './resource';
import { ScriptedRoute, parseRouteKey } from './route';
import type { Route } from './route';
import { bodyText, replyHeaders } from './steps';

/** Options of `startFaultServer()`. */
export interface FaultServerOptions {
  /** Scripts by route key, `'METHOD /path'` (the path is matched without its query string). */
  routes: Record<string, Route>;
  /**
   * Port to listen on; 0 picks a free one.
   * @default 0
   */
  port?: number;
}

/** A running scripted fault server on 127.0.0.1. */
export interface FaultServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  /** Every request received, in arrival order, including those that matched no route. */
  readonly requests: readonly RecordedRequest[];
  /** The requests that matched `route` (`'POST /v1/payments'`), in arrival order. */
  requestsTo(route: string): RecordedRequest[];
  /** Stops listening, drops open connections and cancels pending delays. Safe to call twice. */
  close(): Promise<void>;
}

/** Milliseconds between consecutive requests: the waits a client actually took, seen from the server. */
export function gapsMs(requests: readonly Pick<RecordedRequest, 'time'>[]): number[] {
  return requests.slice(1).map((request, i) => request.time - requests[i]!.time);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts a `node:http` server on 127.0.0.1 that answers each route from its script: statuses,
 * headers such as Retry-After, delays, and connections dropped before or after the work is done.
 * A request that matches no route gets a 404 and is recorded too. Call `close()` when done.
 *
 * @example
 * const server = await startFaultServer({ routes: { 'GET /v1/items': ['503', '503', '200'] } });
 * await http.get(`${server.url}/v1/items`);
 * expect(server.requestsTo('GET /v1/items')).toHaveLength(3);
 * await server.close();
 */
export async function startFaultServer(options: FaultServerOptions): Promise<FaultServer> {
  if (
    options === null ||
    typeof options !== 'object' ||
    options.routes === null ||
    typeof options.routes !== 'object'
  ) {
    throw new TypeError('axios-resilience/testing: startFaultServer needs { routes }');
  }
  const routes = new Map<string, { key: string; script: ScriptedRoute }>();
  for (const [key, route] of Object.entries(options.routes)) {
    const { method, path } = parseRouteKey(key);
    routes.set(`${method} ${path}`, { key, script: new ScriptedRoute(route) });
  }
  const requests: RecordedRequest[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const sockets = new Set<Socket>();
  const handle = answerer(routes, requests, timers);

  const server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestsTo(route) {
      const { method, path } = parseRouteKey(route);
      const key = routes.get(`${method} ${path}`)?.key;
      return requests.filter((request) => request.route !== undefined && request.route === key);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

/** Answers each request from its route's script, recording it; delayed answers are timers in `timers`. */
function answerer(
  routes: Map<string, { key: string; script: ScriptedRoute }>,
  requests: RecordedRequest[],
  timers: Set<ReturnType<typeof setTimeout>>,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const later = (ms: number, socket: Socket, action: () => void): void => {
    if (ms <= 0) return action();
    // A client that gives up (a timeout) closes the socket; nothing is left to answer.
    const cancel = (): void => {
      clearTimeout(timer);
      timers.delete(timer);
    };
    const timer = setTimeout(() => {
      timers.delete(timer);
      socket.off('close', cancel);
      action();
    }, ms);
    timers.add(timer);
    socket.once('close', cancel);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const time = Date.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const path = req.url ?? '/';
    const body = await readBody(req);
    const entry = routes.get(`${method} ${path.split('?')[0]}`);
    const headers = { ...req.headers };
    const recorded: RecordedRequest = { method, path, headers, body, time, route: entry?.key, step: -1 };
    requests.push(recorded);
    if (entry === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`no route for ${method} ${path}\n`);
      return;
    }
    const outcome = entry.script.take(recorded);
    const socket = req.socket;
    if (outcome.kind === 'reset') {
      later(outcome.delayMs, socket, () => socket.destroy());
      return;
    }
    const reply = replyHeaders(outcome.body, outcome.headers);
    later(outcome.delayMs, socket, () => res.writeHead(outcome.status, reply).end(bodyText(outcome.body)));
  };

  return handle;
}
