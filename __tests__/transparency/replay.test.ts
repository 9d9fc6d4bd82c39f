/**
 * Uploads that can be retried (issue 21, part 2): a stream body is kept as it is sent, up to
 * `replay.maxBytes`, and a retry sends the same bytes again under the same key; a stream past the
 * bound goes out whole once and the call stops with `body-not-replayable`; a body factory
 * (`retry.body`) makes each retry's body afresh, so a big file is retried without being kept.
 * Against a real node:http server that fails the first attempt.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import axios from 'axios';
import type { AxiosError, AxiosInstance } from 'axios';
import FormDataPackage from 'form-data';
import { retryPlugin } from '../../lib';
import type { GiveUpEvent, RetryPlugin, RetryPluginOptions } from '../../lib';
import { rejection } from '../support/helpers';
import { parseMultipart, boundaryOf } from '../support/multipart';
import { startWireServer } from '../support/wire-server';
import type { WireHandler, WireServer } from '../support/wire-server';

const MB = 1024 * 1024;

let server: WireServer;
let dir: string;
const plugins: RetryPlugin[] = [];
beforeAll(async () => {
  server = await startWireServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axr-replay-'));
});
afterEach(async () => {
  for (const plugin of plugins.splice(0)) await plugin.close();
  server.requests.length = 0;
});
afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** 503 for the first request, 200 after. */
const failFirst: WireHandler = (_req, res, index) =>
  index === 0 ? res.writeHead(503).end('busy') : res.writeHead(200).end('ok');
const alwaysFail: WireHandler = (_req, res) => res.writeHead(503).end('busy');

function client(options: RetryPluginOptions = {}, adapter: 'http' | 'fetch' = 'http'): AxiosInstance {
  const http = axios.create({ baseURL: server.url, adapter, maxBodyLength: Infinity, maxContentLength: Infinity });
  const plugin = retryPlugin({ random: () => 0, budget: false, breaker: false, ...options });
  plugin.install(http);
  plugins.push(plugin);
  return http;
}

/** A file of `bytes` pseudo-random bytes (so a truncated or shifted copy cannot look equal). */
function fileOf(bytes: number): string {
  const file = path.join(dir, `upload-${bytes}.bin`);
  if (!fs.existsSync(file)) {
    const data = Buffer.alloc(bytes);
    for (let i = 0; i < bytes; i += 4) data.writeUInt32LE((i * 2654435761) >>> 0, i);
    fs.writeFileSync(file, data);
  }
  return file;
}

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('a stream body within replay.maxBytes is sent again, byte for byte, under one key', () => {
  test.each(['http', 'fetch'] as const)('a 1 MB file stream, keyed POST (%s adapter)', async (adapter) => {
    server.handle(failFirst);
    const file = fileOf(MB);
    const http = client({}, adapter);
    const response = await http.post('/upload', fs.createReadStream(file), {
      headers: { 'Content-Type': 'application/octet-stream' },
      retry: { idempotencyKey: 'upload-1' },
    });
    expect(response.status).toBe(200);
    const [first, second] = server.requests;
    expect(server.requests).toHaveLength(2);
    expect(sha(first!.body)).toBe(sha(fs.readFileSync(file)));
    expect(sha(second!.body)).toBe(sha(first!.body));
    expect([first!.headers['idempotency-key'], second!.headers['idempotency-key']]).toEqual(['upload-1', 'upload-1']);
    expect(response.config.retryState).toMatchObject({ attempts: 2, idempotencyKey: 'upload-1' });
  });

  test('postForm with a file stream part (a form-data object): the retry carries the same boundary and bytes', async () => {
    server.handle(failFirst);
    const file = fileOf(300_000);
    const http = client({ idempotencyKey: { serverDedupes: true } });
    const response = await http.postForm('/upload', { name: 'report', file: fs.createReadStream(file) });
    expect(response.status).toBe(200);
    const [first, second] = server.requests;
    expect(server.requests).toHaveLength(2);
    expect(second!.headers['content-type']).toBe(first!.headers['content-type']);
    expect(second!.body.equals(first!.body)).toBe(true);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    const parts = parseMultipart(first!.body, boundaryOf(first!.headers['content-type'])!);
    expect(parts.map((part) => [part.name, part.size])).toEqual([
      ['name', 6],
      ['file', 300_000],
    ]);
  });

  test('a form-data object with a stream part and a Buffer part, PUT', async () => {
    server.handle(failFirst);
    const form = new FormDataPackage();
    form.append('meta', Buffer.from('{"v":1}'), { contentType: 'application/json' });
    form.append('file', fs.createReadStream(fileOf(64_000)));
    const response = await client().put('/files/7', form);
    expect(response.status).toBe(200);
    const [first, second] = server.requests;
    expect(second!.body.equals(first!.body)).toBe(true);
    expect(first!.body.length).toBeGreaterThan(64_000);
  });
});

describe('a stream body past replay.maxBytes', () => {
  test('a 20 MB stream goes out whole on the first attempt, then the call stops body-not-replayable with its key', async () => {
    server.handle(alwaysFail);
    const file = fileOf(20 * MB);
    const gaveUp: GiveUpEvent[] = [];
    const http = client({ onGiveUp: (event) => void gaveUp.push(event) });
    const error = (await rejection(
      http.post('/upload', fs.createReadStream(file), {
        headers: { 'Content-Type': 'application/octet-stream' },
        retry: { idempotencyKey: 'big-1' },
      }),
    )) as unknown as AxiosError;
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body.length).toBe(20 * MB);
    expect(sha(server.requests[0]!.body)).toBe(sha(fs.readFileSync(file)));
    expect(error.response?.status).toBe(503);
    expect(error.config?.retryState).toMatchObject({
      attempts: 1,
      stopReason: 'body-not-replayable',
      idempotencyKey: 'big-1',
    });
    expect(gaveUp.map((event) => event.stopReason)).toEqual(['body-not-replayable']);
  });

  test('the bound is per request too: replay.maxBytes below the body stops the retry', async () => {
    server.handle(failFirst);
    const error = (await rejection(
      client().put('/upload', Readable.from([Buffer.alloc(2_000, 1)]), { retry: { replay: { maxBytes: 1_999 } } }),
    )) as unknown as AxiosError;
    expect(server.requests.map((request) => request.body.length)).toEqual([2_000]);
    expect(error.config?.retryState?.stopReason).toBe('body-not-replayable');
  });

  test('a failure that is not retried anyway keeps its own stop reason', async () => {
    server.handle((_req, res) => res.writeHead(400).end('bad'));
    const error = (await rejection(
      client().put('/upload', Readable.from([Buffer.alloc(2_000, 1)]), { retry: { replay: { maxBytes: 10 } } }),
    )) as unknown as AxiosError;
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
  });
});

describe('a body factory (retry.body) makes each retry afresh', () => {
  test('a 20 MB file, past the bound: the retry is byte-identical, with one key', async () => {
    server.handle(failFirst);
    const file = fileOf(20 * MB);
    let made = 0;
    const response = await client().post('/upload', fs.createReadStream(file), {
      headers: { 'Content-Type': 'application/octet-stream' },
      retry: {
        idempotencyKey: 'big-2',
        body: () => {
          made += 1;
          return fs.createReadStream(file);
        },
      },
    });
    expect(response.status).toBe(200);
    expect(made).toBe(1);
    const [first, second] = server.requests;
    expect(first!.body.length).toBe(20 * MB);
    expect(sha(second!.body)).toBe(sha(first!.body));
    expect(second!.headers['content-type']).toBe('application/octet-stream');
    expect([first!.headers['idempotency-key'], second!.headers['idempotency-key']]).toEqual(['big-2', 'big-2']);
  });

  test('a factory that returns a new form-data object: each retry is a whole multipart body with the same parts', async () => {
    server.handle(failFirst);
    const file = fileOf(50_000);
    const form = (): FormDataPackage => {
      const made = new FormDataPackage();
      made.append('file', fs.createReadStream(file));
      return made;
    };
    const response = await client({ idempotencyKey: { serverDedupes: true } }).post('/upload', form(), {
      retry: { body: form },
    });
    expect(response.status).toBe(200);
    const parts = server.requests.map((request) =>
      parseMultipart(request.body, boundaryOf(request.headers['content-type'])!).map((part) => [part.name, part.size]),
    );
    expect(parts).toEqual([[['file', 50_000]], [['file', 50_000]]]);
    expect(server.requests[1]!.headers['idempotency-key']).toBe(server.requests[0]!.headers['idempotency-key']);
  });

  test('a factory that throws: the call fails with that error, one onGiveUp, nothing sent again', async () => {
    server.handle(failFirst);
    const broken = new Error('cannot reopen the file');
    const gaveUp: GiveUpEvent[] = [];
    const error = await rejection(
      client({ onGiveUp: (event) => void gaveUp.push(event) }).put('/upload', 'first body', {
        retry: {
          body: () => {
            throw broken;
          },
        },
      }),
    );
    expect(server.requests).toHaveLength(1);
    expect(gaveUp).toHaveLength(1);
    expect(gaveUp[0]!.stopReason).toBe('hook-failed');
    expect(gaveUp[0]!.retryState.hookError).toBe(broken);
    // An AxiosError (so error.config.retryState is there) with the factory's message, and its error as cause.
    expect(axios.isAxiosError(error)).toBe(true);
    expect(error.message).toBe('cannot reopen the file');
    expect(error.stack?.split('\n')[0]).toMatch(
      /: cannot reopen the file \(1 attempt over \d+ ms; stopped: hook-failed\)$/,
    );
    expect((error as { cause?: unknown }).cause).toBe(broken);
  });

  test('a factory that returns something that is not a body: a TypeError naming it, nothing sent again', async () => {
    server.handle(failFirst);
    const gaveUp: GiveUpEvent[] = [];
    const error = await rejection(
      client({ onGiveUp: (event) => void gaveUp.push(event) }).put('/upload', 'first body', {
        retry: { body: () => 42 },
      }),
    );
    expect(server.requests).toHaveLength(1);
    expect(gaveUp).toHaveLength(1);
    const thrown = (gaveUp[0]!.retryState.hookError ?? error) as Error;
    expect(thrown).toBeInstanceOf(TypeError);
    expect(thrown.message).toMatch(/config\.retry\.body\(\) must return a request body.*got the number 42/);
  });
});

describe('replay.maxBytes is validated', () => {
  test.each([0, -1, 1.5, '8', Number.NaN, Infinity])('%p is refused with a TypeError naming the field', (value) => {
    expect(() => retryPlugin({ replay: { maxBytes: value as number } })).toThrow(TypeError);
    expect(() => retryPlugin({ replay: { maxBytes: value as number } })).toThrow(/replay\.maxBytes/);
  });

  test('per request too: the call is refused before anything is sent', async () => {
    const error = await rejection(client().put('/upload', 'x', { retry: { replay: { maxBytes: 0 } } }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/replay\.maxBytes/);
    expect(server.requests).toHaveLength(0);
  });

  test('body is per request only', () => {
    expect(() => retryPlugin({ body: () => 'x' } as RetryPluginOptions)).toThrow(/body/);
  });
});
