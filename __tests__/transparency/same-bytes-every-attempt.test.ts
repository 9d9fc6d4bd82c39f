/**
 * Every attempt sends the same bytes, on both of axios's Node adapters: native FormData with Blob
 * and File parts, URLSearchParams, typed arrays, strings, JSON and Blobs are re-sent byte for byte
 * with the same Content-Type, and a failed attempt's streamed response body is released before the
 * retry. Real node:http servers on 127.0.0.1.
 */
import { setupOn } from '../support/plugin-setup';
import { blipOnce, serverPerTest, until } from '../support/test-server';

const ADAPTERS = ['http', 'fetch'] as const;

const t = serverPerTest();
const setup = setupOn(t, 'http');

describe.each(ADAPTERS)('every attempt sends the same bytes (%s adapter)', (adapter) => {
  test('a native FormData with a Blob and a File part: identical bytes and Content-Type on the retry', async () => {
    t.handler = blipOnce;
    const { http } = setup({ idempotencyKey: { serverDedupes: true } }, adapter);
    const form = new FormData();
    form.append('amount', '4200');
    form.append('receipt', new Blob(['line one\nline two'], { type: 'text/plain' }), 'receipt.txt');
    form.append('photo', new File(['pretend-jpeg'], 'photo.jpg', { type: 'image/jpeg' }));
    const response = await http.post(`${t.server.url}/payments`, form);
    expect(response.status).toBe(200);
    const [first, second] = t.server.requests;
    expect(t.server.requests).toHaveLength(2);
    expect(first!.headers['idempotency-key']).toBe(second!.headers['idempotency-key']);
    expect(first!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(second!.headers['content-type']).toBe(first!.headers['content-type']);
    expect(second!.body).toBe(first!.body);
    expect(first!.body).toContain('line one\nline two');
    expect(first!.body).toContain('pretend-jpeg');
  });

  test.each([
    ['URLSearchParams', () => new URLSearchParams({ a: '1', b: 'two' })],
    ['a typed array', () => new TextEncoder().encode('bytes!')],
    ['a string', () => 'plain text'],
    ['a JSON object', () => ({ amount: 4200, currency: 'EUR' })],
    ['a Blob', () => new Blob(['blob body'], { type: 'application/octet-stream' })],
  ])('%s: identical bytes and Content-Type on the retry', async (_name, body) => {
    t.handler = blipOnce;
    const { http } = setup({ idempotencyKey: { serverDedupes: true } }, adapter);
    await http.post(`${t.server.url}/things`, body());
    const [first, second] = t.server.requests;
    expect(t.server.requests).toHaveLength(2);
    expect(second!.body).toBe(first!.body);
    expect(first!.body.length).toBeGreaterThan(0);
    expect(second!.headers['content-type']).toBe(first!.headers['content-type']);
  });

  test('a failed attempt’s streamed response body is released before the retry', async () => {
    let firstClosed = false;
    t.handler = (req, res, index) => {
      if (index > 0) return void res.writeHead(200).end('ok');
      res.socket!.on('close', () => (firstClosed = true));
      // A large error body that the server would keep streaming until the client lets go.
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.write('x'.repeat(256 * 1024));
    };
    const { http } = setup({ baseDelayMs: 20, random: () => 0.5 }, adapter);
    const response = await http.get(`${t.server.url}/report`, { responseType: 'stream' });
    expect(response.status).toBe(200);
    (response.data as { destroy?: () => void; cancel?: () => Promise<void> }).destroy?.();
    await until(() => firstClosed);
    expect(t.server.requests).toHaveLength(2);
  });
});
