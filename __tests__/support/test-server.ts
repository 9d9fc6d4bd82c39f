/** A tiny node:http server for behaviour tests: records every request, answers via a handler. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface TestServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export type Handler = (req: SeenRequest, res: http.ServerResponse, index: number) => void;

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      handler(seen, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/**
 * Resolves once `predicate` holds, checking every few ms; rejects after `ms`. The bound only tells
 * "never" from "late on a loaded machine": a condition that holds returns as soon as it does.
 */
export async function until(predicate: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A fresh server per test, answered by `t.handler` (200 by default); plugins in `t.plugins` are closed after it. */
export interface ServerPerTest {
  server: TestServer;
  handler: Handler;
  plugins: Array<{ close(): Promise<void> }>;
}

export function serverPerTest(): ServerPerTest {
  const ok: Handler = (_req, res) => res.writeHead(200).end('ok');
  const t = { handler: ok, plugins: [] } as unknown as ServerPerTest;
  beforeEach(async () => {
    t.handler = ok;
    t.server = await startServer((req, res, index) => t.handler(req, res, index));
  });
  afterEach(async () => {
    jest.useRealTimers();
    while (t.plugins.length) await t.plugins.pop()!.close();
    await t.server.close();
  });
  return t;
}

/** Answers the n-th request with the n-th status (the last one repeats), body `{"n":<index>}`. */
export const statuses =
  (...list: number[]): Handler =>
  (_req, res, index) =>
    res.writeHead(list[Math.min(index, list.length - 1)]!).end(`{"n":${index}}`);

/** 503 for the first request, then 200. */
export const blipOnce: Handler = (_req, res, index) =>
  res.writeHead(index === 0 ? 503 : 200).end(index === 0 ? 'busy' : 'ok');
