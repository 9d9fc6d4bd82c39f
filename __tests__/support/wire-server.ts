/**
 * A node:http server on 127.0.0.1 that keeps the exact bytes of every request it receives, for
 * differential tests: the same call through plain axios and through the plugin must reach it equal.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WireRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The body exactly as it arrived (chunked framing removed by Node, nothing else). */
  body: Buffer;
}

export type WireHandler = (req: WireRequest, res: http.ServerResponse, index: number) => void;

export interface WireServer {
  url: string;
  requests: WireRequest[];
  /** Answers every request from now on; 200 `ok` until set. */
  handle(handler: WireHandler): void;
  close(): Promise<void>;
}

const ok: WireHandler = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');

export async function startWireServer(): Promise<WireServer> {
  const requests: WireRequest[] = [];
  let handler = ok;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(seen);
      handler(seen, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
