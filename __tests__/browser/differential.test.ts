/**
 * The plugin never changes what a call sends, in Chromium: each body form a browser has is sent by
 * an app bundled with esbuild (fixtures/differential, which builds the bodies in the page) through
 * plain axios and through an instance with the plugin, on the xhr and fetch adapters, to a server
 * on the page's own origin. What the server received is compared multipart part by part, else byte
 * for byte, headers too (the Idempotency-Key on its own); then a keyed call answered 503 then 200
 * must carry the same bytes, headers, boundary and key on both attempts.
 */
import type { Page } from 'playwright-core';
import { received } from '../support/differential';
import type { Received } from '../support/differential';
import type { Seen } from './server';
import { pageFixture } from './page-fixture';

const fixture = pageFixture('differential');

interface Sent {
  ok: boolean;
  status?: number;
  attempts?: number;
  code?: string;
  message?: string;
}

interface SendSpec {
  adapter: 'xhr' | 'fetch';
  form: string;
  url: string;
  plugin: boolean;
  key?: string;
}

function send(page: Page, spec: SendSpec): Promise<Sent> {
  return page.evaluate(
    (s) => (window as unknown as { axrDiff: { send(spec: SendSpec): Promise<Sent> } }).axrDiff.send(s),
    spec,
  );
}

/** A request as the differential helpers compare it. */
function asReceived(seen: Seen): Received {
  return received({ method: seen.method, url: seen.path, headers: seen.headers, body: seen.body });
}

/** The methods the plugin keys by default: their first attempt carries a generated key. */
const KEYED = new Set(['POST', 'PATCH']);
const KEY = 'k-1';

/** The forms of fixtures/differential/main.js, and the multipart parts each must reach the server as. */
const FORMS: Array<[form: string, parts: number | undefined]> = [
  ['string', undefined],
  ['json', undefined],
  ['urlSearchParams', undefined],
  ['urlencodedObject', undefined],
  ['arrayBuffer', undefined],
  ['uint8Array', undefined],
  ['float64Array', undefined],
  ['dataView', undefined],
  ['blob', undefined],
  ['file', undefined],
  ['formData', 4],
  ['postForm', 7],
];

test('the app sends every form this file lists', async () => {
  const forms = await fixture.watched.page.evaluate(
    () => (window as unknown as { axrDiff: { forms: string[] } }).axrDiff.forms,
  );
  expect(forms).toEqual(FORMS.map(([form]) => form));
});

describe.each(['xhr', 'fetch'] as const)('in Chromium, over the %s adapter', (adapter) => {
  describe.each(FORMS)('%s', (form, parts) => {
    const path = (name: string): string => `/api/${adapter}/${form}/${name}`;

    test('the first attempt reaches the server as plain axios sends it', async () => {
      const plainUrl = fixture.server.route(path('plain'), [200]);
      const pluginUrl = fixture.server.route(path('plugin'), [200]);
      expect(await send(fixture.watched.page, { adapter, form, url: plainUrl, plugin: false })).toMatchObject({
        ok: true,
      });
      expect(await send(fixture.watched.page, { adapter, form, url: pluginUrl, plugin: true })).toMatchObject({
        ok: true,
        attempts: 1,
      });
      const [bare] = fixture.server.requests(path('plain'));
      const [withPlugin] = fixture.server.requests(path('plugin'));
      const plain = asReceived(bare!);
      const plugin = asReceived(withPlugin!);
      if (parts === undefined) expect(typeof plain.body).toBe('string');
      else expect(plain.body).toHaveLength(parts);
      expect(plain.body.length).toBeGreaterThan(0);
      // The paths differ by design (one route per side); everything else must not.
      expect({ ...plugin, url: '' }).toEqual({
        ...plain,
        url: '',
        key: KEYED.has(plain.method) ? expect.any(String) : undefined,
      });
    });

    test('a keyed call answered 503 then 200 sends the same bytes, headers and key twice', async () => {
      const plainUrl = fixture.server.route(path('retry-plain'), [200]);
      const url = fixture.server.route(path('retried'), [503, 200]);
      expect(await send(fixture.watched.page, { adapter, form, url: plainUrl, plugin: false })).toMatchObject({
        ok: true,
      });
      expect(await send(fixture.watched.page, { adapter, form, url, plugin: true, key: KEY })).toMatchObject({
        ok: true,
        status: 200,
        attempts: 2,
      });
      const [first, second] = fixture.server.requests(path('retried'));
      expect(fixture.server.requests(path('retried'))).toHaveLength(2);
      expect(first!.headers['idempotency-key']).toBe(KEY);
      // Raw: the same boundary, the same bytes, every header equal.
      expect(second!.headers).toEqual(first!.headers);
      expect(second!.body.equals(first!.body)).toBe(true);
      const [plain] = fixture.server.requests(path('retry-plain'));
      expect({ ...asReceived(first!), url: '' }).toEqual({ ...asReceived(plain!), url: '', key: KEY });
    });
  });
});
