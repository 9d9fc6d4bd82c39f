/**
 * The plugin never changes what a call sends. Each case sends one body form through plain axios and
 * through an instance with the plugin (`retryPlugin()` defaults), on axios's http and fetch
 * adapters, to a real server on 127.0.0.1, and compares what the server received: multipart part by
 * part (boundaries are random), everything else byte for byte, headers too (the Idempotency-Key is
 * compared on its own). Then the same call, keyed and answered 503 then 200, must carry the same
 * bytes, headers, boundary and key on both attempts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import axios from 'axios';
import type { AxiosRequestTransformer } from 'axios';
import FormDataPackage from 'form-data';
import { RETRY_KEY, received, sendBoth, sendRetried } from '../support/differential';
import type { Call, NodeAdapter } from '../support/differential';
import { parseMultipart } from '../support/multipart';
import { startWireServer } from '../support/wire-server';
import type { WireServer } from '../support/wire-server';

let server: WireServer;
let dir: string;
beforeAll(async () => {
  server = await startWireServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axr-diff-'));
});
afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Bytes that are not text: every byte value, so an encoding slip shows. */
function bytes(length: number, seed = 0): Buffer {
  return Buffer.from(Array.from({ length }, (_, i) => (i * 31 + seed) % 256));
}

/** A file on disk of `length` such bytes (a stream part reads it afresh for each send). */
function fileOf(name: string, length: number): string {
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) fs.writeFileSync(file, bytes(length, 5));
  return file;
}

/** The methods the plugin keys by default: their first attempt carries a generated key. */
const KEYED = new Set(['POST', 'PATCH']);

interface BodyCase {
  name: string;
  /** Builds the call afresh for each send (a stream can be read once). */
  make: () => Call;
  /** How many multipart parts the server must see, for a multipart case. */
  parts?: number;
}

const blob = (): Blob => new Blob([new Uint8Array(bytes(300, 1))], { type: 'application/octet-stream' });
const file = (): File => new File([new Uint8Array(bytes(200, 2))], 'photo.jpg', { type: 'image/jpeg' });

/** The same nested value for every `*Form` helper: objects, arrays and nested objects. */
const formValue = (): Record<string, unknown> => ({
  name: 'report',
  amount: 4200,
  tags: ['a', 'b'],
  owner: { id: 7, address: { city: 'Köln' } },
  attachment: bytes(500, 3),
});

/** Every body form axios sends from Node on both of its adapters. */
const COMMON: BodyCase[] = [
  { name: 'a string', make: () => (http, c) => http.post('/b', 'plain text, ünïcode ✓', c) },
  {
    name: 'a JSON object',
    make: () => (http, c) => http.post('/b', { amount: 4200, currency: 'EUR', lines: [{ sku: 'x', qty: 2 }] }, c),
  },
  {
    name: 'URLSearchParams',
    make: () => (http, c) => http.post('/b', new URLSearchParams({ a: '1', b: 'x y', c: 'ü&=' }), c),
  },
  {
    name: 'an object sent as x-www-form-urlencoded',
    make: () => (http, c) =>
      http.post(
        '/b',
        { a: '1', b: 'x y', list: [1, 2], nested: { k: 'v' } },
        { ...c, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } },
      ),
  },
  { name: 'a Buffer', make: () => (http, c) => http.put('/b', bytes(1000), c) },
  {
    name: 'an ArrayBuffer',
    make: () => (http, c) => {
      const source = bytes(700);
      return http.post('/b', source.buffer.slice(source.byteOffset, source.byteOffset + source.length), c);
    },
  },
  { name: 'a Uint8Array', make: () => (http, c) => http.post('/b', new Uint8Array(bytes(640)), c) },
  {
    name: 'a typed array over part of its buffer (Uint8Array view at an offset)',
    make: () => (http, c) => http.post('/b', new Uint8Array(new Uint8Array(bytes(64)).buffer, 8, 40), c),
  },
  { name: 'a Float64Array', make: () => (http, c) => http.post('/b', new Float64Array([1.5, -2, Math.PI]), c) },
  {
    name: 'a DataView',
    make: () => (http, c) => http.post('/b', new DataView(new Uint8Array(bytes(96)).buffer, 16, 48), c),
  },
  { name: 'a Blob', make: () => (http, c) => http.post('/b', blob(), c) },
  { name: 'a File', make: () => (http, c) => http.patch('/b', file(), c) },
  {
    name: 'a user’s own transformRequest (replacing axios’s)',
    make: () => (http, c) =>
      http.post(
        '/b',
        { amount: 4200 },
        {
          ...c,
          transformRequest: (data: { amount: number }, headers) => {
            headers.set('Content-Type', 'application/x-custom');
            return `amount=${data.amount};cents`;
          },
        },
      ),
  },
  {
    name: 'a user’s own transformRequest (after axios’s)',
    make: () => (http, c) =>
      http.post(
        '/b',
        { amount: 4200 },
        {
          ...c,
          transformRequest: [
            ...(axios.defaults.transformRequest as AxiosRequestTransformer[]),
            (data: string) => Buffer.from(data.toUpperCase()),
          ],
        },
      ),
  },
  {
    name: 'a Node Readable of chunks',
    make: () => (http, c) => http.post('/b', Readable.from([bytes(1000, 1), bytes(3000, 2), Buffer.from('end')]), c),
  },
  {
    name: 'a file stream (fs.createReadStream)',
    make: () => (http, c) => http.put('/b', fs.createReadStream(fileOf('stream.bin', 300_000)), c),
  },
];

/**
 * A web ReadableStream: what only the fetch adapter sends. axios's http adapter refuses it in plain
 * axios too ("Data after transformation must be …", checked below).
 */
const WEB_STREAM: BodyCase = {
  name: 'a web ReadableStream',
  make: () => (http, c) => {
    const chunks = [bytes(2000, 3), bytes(500, 4)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new Uint8Array(next));
      },
    });
    return http.post('/b', stream, { ...c, headers: { 'Content-Type': 'application/octet-stream' } });
  },
};

/** A native FormData with string, Blob and File parts; `headers` are the call's own. */
function nativeForm(headers: Record<string, string>): Call {
  const form = new FormData();
  form.append('amount', '4200');
  form.append('note', 'ünïcode ✓');
  form.append('receipt', blob(), 'receipt.bin');
  form.append('photo', file());
  return (http, c) => http.post('/b', form, { ...c, headers });
}

/**
 * `form-data` package objects: what only the http adapter sends. axios builds one in Node for
 * `postForm`, `putForm`, `patchForm` and an object sent as `multipart/form-data`, and axios's fetch
 * adapter hands it to fetch, which sends the 17 bytes `[object FormData]` in plain axios too
 * (checked below), so these cases are not in the fetch adapter's table.
 */
const FORM_DATA_PACKAGE: BodyCase[] = [
  {
    name: 'a form-data object with string, Buffer and stream parts',
    parts: 4,
    make: () => (http, c) => {
      const form = new FormDataPackage();
      form.append('name', 'report');
      form.append('raw', bytes(600, 4), { filename: 'raw.bin', contentType: 'application/octet-stream' });
      form.append('plain', bytes(100, 6));
      form.append('upload', fs.createReadStream(fileOf('upload.bin', 50_000)));
      return http.post('/b', form, c);
    },
  },
  {
    name: 'postForm with objects, arrays and nested objects',
    parts: 7,
    make: () => (http, c) => http.postForm('/b', formValue(), c),
  },
  {
    name: 'putForm with objects, arrays and nested objects',
    parts: 7,
    make: () => (http, c) => http.putForm('/b', formValue(), c),
  },
  {
    name: 'patchForm with objects, arrays and nested objects',
    parts: 7,
    make: () => (http, c) => http.patchForm('/b', formValue(), c),
  },
  {
    name: 'postForm with formSerializer { dots: true, indexes: true }',
    parts: 7,
    make: () => (http, c) => http.postForm('/b', formValue(), { ...c, formSerializer: { dots: true, indexes: true } }),
  },
  {
    name: 'an object sent as multipart/form-data',
    parts: 2,
    make: () => (http, c) =>
      http.post('/b', { a: '1', list: ['x'] }, { ...c, headers: { 'Content-Type': 'multipart/form-data' } }),
  },
];

const NATIVE_FORM = 'a native FormData with string, Blob and File parts';

const TABLES: Record<NodeAdapter, BodyCase[]> = {
  http: [...COMMON, { name: NATIVE_FORM, parts: 4, make: () => nativeForm({}) }, ...FORM_DATA_PACKAGE],
  fetch: [
    ...COMMON,
    // Over fetch in Node, plain axios labels a native FormData `application/x-www-form-urlencoded`
    // (its default for a POST) unless the call says `multipart/form-data` (checked below), so the
    // case is the call that works in plain axios.
    {
      name: `${NATIVE_FORM} (Content-Type: multipart/form-data)`,
      parts: 4,
      make: () => nativeForm({ 'Content-Type': 'multipart/form-data' }),
    },
    WEB_STREAM,
  ],
};

describe.each(['http', 'fetch'] as const)('over the %s adapter', (adapter) => {
  describe.each(TABLES[adapter].map((c) => [c.name, c] as const))('%s', (_name, form) => {
    test('the first attempt reaches the server as plain axios sends it', async () => {
      const { plain, plugin } = await sendBoth(server, form.make, { adapter });
      if (form.parts === undefined) expect(typeof plain.body).toBe('string');
      else expect(plain.body).toHaveLength(form.parts);
      expect(plain.body.length).toBeGreaterThan(0);
      expect(plugin).toEqual({ ...plain, key: KEYED.has(plain.method) ? expect.any(String) : undefined });
    });

    test('a keyed call answered 503 then 200 sends the same bytes, headers and key twice', async () => {
      const { plain } = await sendBoth(server, form.make, { adapter });
      const { status, requests } = await sendRetried(server, form.make, { adapter });
      expect(status).toBe(200);
      expect(requests).toHaveLength(2);
      const [first, second] = requests;
      expect(first!.headers['idempotency-key']).toBe(RETRY_KEY);
      // Raw: the same boundary, the same bytes, every header equal.
      expect(second!.headers).toEqual(first!.headers);
      expect(second!.body.equals(first!.body)).toBe(true);
      expect(received(first!)).toEqual({ ...plain, key: RETRY_KEY });
    });
  });
});

describe('what plain axios cannot send over the fetch adapter in Node (why the fetch table leaves it out)', () => {
  test.each(FORM_DATA_PACKAGE.map((c) => [c.name, c] as const))(
    '%s: the 17 bytes [object FormData]',
    async (_name, form) => {
      const bare = axios.create({ baseURL: server.url, adapter: 'fetch' });
      const before = server.requests.length;
      await form.make()(bare, {});
      expect(server.requests[before]!.body.toString()).toBe('[object FormData]');
    },
  );

  test('a native FormData without a multipart Content-Type: labelled x-www-form-urlencoded', async () => {
    const { plain, plugin } = await sendBoth(server, () => nativeForm({}), { adapter: 'fetch' });
    expect(plain.headers['content-type']).toBe('application/x-www-form-urlencoded');
    // The one place the plugin differs from plain axios: it sends the form encoded once by the
    // platform (the same parts), under the multipart Content-Type that names its boundary.
    const raw = Buffer.from(plain.body as string, 'base64');
    const boundary = raw.subarray(2, raw.indexOf('\r\n')).toString();
    expect(plugin.headers['content-type']).toBe('multipart/form-data; boundary=<boundary>');
    expect(plugin.body).toEqual(parseMultipart(raw, boundary));
    expect(plugin.body).toHaveLength(4);
  });
});

describe('what plain axios cannot send over the http adapter (why the http table leaves it out)', () => {
  test('a web ReadableStream: refused before anything is sent', async () => {
    const bare = axios.create({ baseURL: server.url, adapter: 'http' });
    const before = server.requests.length;
    await expect(WEB_STREAM.make()(bare, {})).rejects.toThrow(/Data after transformation must be/);
    expect(server.requests).toHaveLength(before);
  });
});
