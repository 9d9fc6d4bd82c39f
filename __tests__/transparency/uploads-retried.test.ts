/**
 * Uploads against a real server that fails the first attempt (503, then 200), on axios's http and
 * fetch adapters: a file stream within the replay bound and one sent with a body factory are
 * re-sent byte for byte under one key; a 20 MiB stream past the default bound (8 MiB) goes out
 * whole once, and the call stops with `body-not-replayable` (never a truncated or empty retry).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import axios from 'axios';
import type { AxiosError } from 'axios';
import { retryPlugin } from '../../lib';
import type { GiveUpEvent, RetryPluginOptions } from '../../lib';
import { startWireServer } from '../support/wire-server';
import type { WireServer } from '../support/wire-server';

let server: WireServer;
let dir: string;
let small: string;
let large: string;
const MiB = 1024 * 1024;

beforeAll(async () => {
  server = await startWireServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axr-upload-'));
  small = path.join(dir, 'small.bin');
  large = path.join(dir, 'large.bin');
  fs.writeFileSync(small, Buffer.from(Array.from({ length: 3 * MiB }, (_, i) => (i * 31) % 256)));
  fs.writeFileSync(large, Buffer.alloc(20 * MiB, 7));
});
afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** An instance with the plugin; the server answers the next request 503 and every later one 200. */
function failingOnce(adapter: 'http' | 'fetch', options: RetryPluginOptions = {}) {
  const giveUps: GiveUpEvent[] = [];
  const http = axios.create({ baseURL: server.url, adapter });
  const plugin = retryPlugin({ random: () => 0, onGiveUp: (event) => giveUps.push(event), ...options });
  plugin.install(http);
  const start = server.requests.length;
  server.handle((_request, res, index) => {
    res.writeHead(index === start ? 503 : 200, { 'content-type': 'text/plain' }).end(index === start ? 'busy' : 'ok');
  });
  return { http, plugin, giveUps, sent: () => server.requests.slice(start) };
}

describe.each(['http', 'fetch'] as const)('uploads over the %s adapter, first attempt answered 503', (adapter) => {
  test('a 3 MiB file stream within the bound: the retry sends the same bytes under the same key', async () => {
    const { http, plugin, sent } = failingOnce(adapter);
    try {
      const response = await http.post('/upload', fs.createReadStream(small), {
        headers: { 'Content-Type': 'application/octet-stream' },
        retry: { idempotencyKey: { serverDedupes: true } },
      });
      expect(response.status).toBe(200);
      const [first, second] = sent();
      expect(sent()).toHaveLength(2);
      const file = fs.readFileSync(small);
      expect(first!.body.equals(file)).toBe(true);
      expect(second!.body.equals(file)).toBe(true);
      expect(first!.headers['idempotency-key']).toEqual(expect.any(String));
      expect(second!.headers).toEqual(first!.headers);
    } finally {
      await plugin.close();
    }
  });

  test('a body factory past the bound: the retry sends the factory’s stream, the same bytes, one key', async () => {
    const { http, plugin, sent } = failingOnce(adapter, { replay: { maxBytes: MiB } });
    let made = 0;
    try {
      const response = await http.put('/upload', fs.createReadStream(small), {
        headers: { 'Content-Type': 'application/octet-stream' },
        retry: {
          idempotencyKey: 'upload-1',
          body: () => {
            made++;
            return fs.createReadStream(small);
          },
        },
      });
      expect(response.status).toBe(200);
      expect(made).toBe(1);
      const [first, second] = sent();
      expect(sent()).toHaveLength(2);
      expect(first!.body.equals(fs.readFileSync(small))).toBe(true);
      expect(second!.body.equals(first!.body)).toBe(true);
      expect([first!.headers['idempotency-key'], second!.headers['idempotency-key']]).toEqual(['upload-1', 'upload-1']);
      expect(second!.headers).toEqual(first!.headers);
    } finally {
      await plugin.close();
    }
  });

  test('a 20 MiB stream past the default bound goes out whole once, then stops body-not-replayable', async () => {
    const { http, plugin, giveUps, sent } = failingOnce(adapter);
    try {
      const error = await http
        .post('/upload', fs.createReadStream(large), {
          headers: { 'Content-Type': 'application/octet-stream' },
          retry: { idempotencyKey: 'upload-2' },
        })
        .then(
          () => undefined,
          (reason: AxiosError) => reason,
        );
      expect(error?.response?.status).toBe(503);
      expect(error?.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'body-not-replayable' });
      expect(giveUps.map((g) => g.stopReason)).toEqual(['body-not-replayable']);
      expect(sent()).toHaveLength(1);
      expect(sent()[0]!.body.length).toBe(20 * MiB);
      expect(sent()[0]!.body.equals(fs.readFileSync(large))).toBe(true);
    } finally {
      await plugin.close();
    }
  });
});
