/**
 * The `form-data` package's object is what axios builds in Node for `postForm`, `putForm`,
 * `patchForm` and for an object sent as `multipart/form-data`, and the usual way to upload a file
 * from Node. 0.3.0 took it for a WHATWG FormData and sent the 17 bytes `[object FormData]`.
 * Each case here sends the same body through plain axios and through the plugin.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import FormDataPackage from 'form-data';
import { sendBoth } from '../support/differential';
import { startWireServer } from '../support/wire-server';
import type { WireServer } from '../support/wire-server';

let server: WireServer;
let dir: string;
beforeAll(async () => {
  server = await startWireServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axr-form-'));
});
afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function fileOf(bytes: number): string {
  const file = path.join(dir, `f-${bytes}.bin`);
  fs.writeFileSync(file, Buffer.alloc(bytes, 7));
  return file;
}

describe('the server receives what plain axios sends, part by part', () => {
  it('postForm with a string and a Buffer', async () => {
    const { plain, plugin } = await sendBoth(
      server,
      () => (http) => http.postForm('/u', { a: '1', f: Buffer.alloc(500, 1) }),
    );
    expect(plugin.body).not.toBe(Buffer.from('[object FormData]').toString('base64'));
    expect(plain.body).toHaveLength(2);
    expect(plugin).toEqual({ ...plain, key: expect.any(String) });
  });

  it('an object sent with Content-Type: multipart/form-data', async () => {
    const { plain, plugin } = await sendBoth(
      server,
      () => (http) => http.post('/u', { a: '1', b: 'two' }, { headers: { 'Content-Type': 'multipart/form-data' } }),
    );
    expect(plain.body).toHaveLength(2);
    expect(plugin).toEqual({ ...plain, key: expect.any(String) });
  });

  it('a form-data object with a 200 KB file stream part', async () => {
    const file = fileOf(200_000);
    const { plain, plugin } = await sendBoth(server, () => {
      const form = new FormDataPackage();
      form.append('name', 'report');
      form.append('file', fs.createReadStream(file));
      return (http) => http.post('/u', form);
    });
    expect(plain.body).toEqual([
      expect.objectContaining({ name: 'name' }),
      expect.objectContaining({ name: 'file', filename: 'f-200000.bin', size: 200_000 }),
    ]);
    expect(plugin).toEqual({ ...plain, key: expect.any(String) });
  });

  it('a form-data object with Buffer parts', async () => {
    const { plain, plugin } = await sendBoth(server, () => {
      const form = new FormDataPackage();
      form.append('a', Buffer.alloc(600, 2), { filename: 'a.bin', contentType: 'application/octet-stream' });
      form.append('b', Buffer.alloc(400, 3));
      return (http) => http.put('/u', form);
    });
    expect(plain.body).toHaveLength(2);
    expect(plugin).toEqual({ ...plain, key: undefined });
  });
});
