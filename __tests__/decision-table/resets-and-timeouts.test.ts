import axios from 'axios';
import type { AxiosError } from 'axios';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { retryPlugin } from '../../lib';
import type { RetryPluginOptions } from '../../lib';
import { rejection } from '../support/helpers';

/** A real server on 127.0.0.1 that handles each request by the handler for its attempt number. */
async function serve(handlers: Array<(req: http.IncomingMessage, res: http.ServerResponse, body: string) => void>) {
  const received: Array<{ method: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ method: req.method!, headers: req.headers, body });
      handlers[Math.min(received.length - 1, handlers.length - 1)]!(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ok = (_req: http.IncomingMessage, res: http.ServerResponse) =>
  res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
const reset = (req: http.IncomingMessage) => req.socket.destroy();
const hang = () => undefined;

const plugins: Array<{ close(): Promise<void> }> = [];
function instance(options: RetryPluginOptions = {}, adapter?: 'http' | 'fetch') {
  const client = axios.create(adapter ? { adapter } : {});
  const plugin = retryPlugin({ random: () => 0, budget: false, breaker: false, ...options });
  plugin.install(client);
  plugins.push(plugin);
  return client;
}
afterEach(async () => {
  while (plugins.length) await plugins.pop()!.close();
});

describe.each(['http', 'fetch'] as const)('over real sockets with the %s adapter', (adapter) => {
  test('a GET whose connection is reset is retried and succeeds', async () => {
    const server = await serve([reset, ok]);
    try {
      const response = await instance({}, adapter).get(`${server.url}/r`);
      expect(response.data).toEqual({ ok: true });
      expect(server.received).toHaveLength(2);
      expect(response.config.retryState?.attempts).toBe(2);
    } finally {
      await server.close();
    }
  });

  test('a POST without a key whose connection is reset is not retried', async () => {
    const server = await serve([reset, ok]);
    try {
      const error = (await rejection(
        instance({ idempotencyKey: false }, adapter).post(`${server.url}/pay`, { a: 1 }),
      )) as unknown as AxiosError;
      expect(axios.isAxiosError(error)).toBe(true);
      expect(error.config?.retryState?.stopReason).toBe('non-idempotent');
      expect(server.received).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  test('a POST with a key is retried after a reset, with the same key and the same body', async () => {
    const server = await serve([reset, reset, ok]);
    try {
      const response = await instance({ idempotencyKey: { serverDedupes: true } }, adapter).post(`${server.url}/pay`, {
        amount: 7,
      });
      expect(response.status).toBe(200);
      expect(server.received).toHaveLength(3);
      expect(new Set(server.received.map((r) => r.headers['idempotency-key'])).size).toBe(1);
      expect(new Set(server.received.map((r) => r.body))).toEqual(new Set(['{"amount":7}']));
    } finally {
      await server.close();
    }
  });

  test('the per-attempt timeout is retried for a GET, and each attempt gets the full timeout', async () => {
    const server = await serve([hang, ok]);
    try {
      // The retry's answer must come inside the timeout too: at 100 ms, beside a busy loop per core,
      // one loopback round trip in a hundred took over 50 ms, the slowest 230.
      const response = await instance({}, adapter).get(`${server.url}/slow`, { timeout: 500 });
      expect(response.status).toBe(200);
      expect(server.received).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  test('a POST without a key that times out stops with non-idempotent (the origin may have done it)', async () => {
    const server = await serve([hang, ok]);
    try {
      const error = (await rejection(
        instance({ idempotencyKey: false }, adapter).post(`${server.url}/pay`, {}, { timeout: 100 }),
      )) as unknown as AxiosError;
      expect(['ECONNABORTED', 'ETIMEDOUT']).toContain(error.code);
      expect(error.config?.retryState?.stopReason).toBe('non-idempotent');
      expect(server.received).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

test.each(['http', 'fetch'] as const)(
  'a POST without a key is retried on ECONNREFUSED with the %s adapter',
  async (adapter) => {
    // Take a free port, close it, and call it: connection refused, then open it for the retry.
    const probe = await serve([ok]);
    const url = probe.url;
    await probe.close();
    let opened: Awaited<ReturnType<typeof serve>> | undefined;
    const client = instance(
      {
        idempotencyKey: false,
        onRetry: async ({ reason }) => {
          expect(reason).toBe('ECONNREFUSED');
          const port = Number(new URL(url).port);
          const server = http.createServer((_req, res) => res.end('{"ok":true}'));
          await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
          opened = {
            url,
            received: [],
            close: () => new Promise<void>((resolve) => server.close(() => resolve())),
          };
        },
      },
      adapter,
    );
    try {
      const response = await client.post(`${url}/pay`, { a: 1 });
      expect(response.status).toBe(200);
      expect(response.config.retryState?.attempts).toBe(2);
    } finally {
      await opened?.close();
    }
  },
);
