import type { AxiosError } from 'axios';
import { client, rejection } from '../support/helpers';
import { closeAll, script, useNock } from '../support/nock-helpers';

const API = 'http://api.test';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

useNock();
afterEach(closeAll);

test('a POST keeps one key across its retries', async () => {
  const seen = script(API, 'post', '/payments', [503, 503, 201]);
  const { http } = client({ idempotencyKey: { serverDedupes: true } });
  const response = await http.post(`${API}/payments`, { amount: 42 });
  const keys = seen.map((s) => s.headers['idempotency-key']);
  expect(keys).toHaveLength(3);
  expect(keys[0]).toMatch(UUID_V4);
  expect(new Set(keys).size).toBe(1);
  expect(response.config.retryState?.idempotencyKey).toBe(keys[0]);
});

test('two POSTs get two keys', async () => {
  const seen = script(API, 'post', '/payments', [201]);
  const { http } = client();
  await http.post(`${API}/payments`, { amount: 1 });
  await http.post(`${API}/payments`, { amount: 1 });
  expect(seen[0]!.headers['idempotency-key']).not.toBe(seen[1]!.headers['idempotency-key']);
});

test('PATCH gets a key; GET, PUT and DELETE do not', async () => {
  const patch = script(API, 'patch', '/r', [200]);
  const get = script(API, 'get', '/r', [200]);
  const put = script(API, 'put', '/r', [200]);
  const del = script(API, 'delete', '/r', [200]);
  const { http } = client();
  await http.patch(`${API}/r`, {});
  await http.get(`${API}/r`);
  await http.put(`${API}/r`, {});
  await http.delete(`${API}/r`);
  expect(patch[0]!.headers['idempotency-key']).toMatch(UUID_V4);
  expect(get[0]!.headers['idempotency-key']).toBeUndefined();
  expect(put[0]!.headers['idempotency-key']).toBeUndefined();
  expect(del[0]!.headers['idempotency-key']).toBeUndefined();
});

test('a key the caller set in the header is kept as is and makes the POST retryable', async () => {
  const seen = script(API, 'post', '/payments', [503, 201]);
  const { http } = client();
  const response = await http.post(`${API}/payments`, {}, { headers: { 'Idempotency-Key': 'caller-key-1' } });
  expect(seen.map((s) => s.headers['idempotency-key'])).toEqual(['caller-key-1', 'caller-key-1']);
  expect(response.config.retryState?.idempotencyKey).toBe('caller-key-1');
});

test("a per-request idempotencyKey: 'order-42' pins the key", async () => {
  const seen = script(API, 'post', '/orders', [502, 201]);
  const { http } = client();
  await http.post(`${API}/orders`, {}, { retry: { idempotencyKey: 'order-42' } });
  expect(seen.map((s) => s.headers['idempotency-key'])).toEqual(['order-42', 'order-42']);
});

test('idempotencyKey: false sends none, and then a POST is not retried on 503', async () => {
  const seen = script(API, 'post', '/payments', [503, 201]);
  const { http } = client();
  const error = (await rejection(
    http.post(`${API}/payments`, {}, { retry: { idempotencyKey: false } }),
  )) as unknown as AxiosError;
  expect(seen).toHaveLength(1);
  expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
  expect(error.config?.retryState).toEqual({ attempts: 1, delaysMs: [], stopReason: 'non-idempotent' });
});

test('the header name, methods and generator are configurable', async () => {
  const seen = script(API, 'put', '/r', [503, 200]);
  let n = 0;
  const { http } = client({
    idempotencyKey: { header: 'X-Request-Key', methods: ['PUT'], generate: () => `k-${++n}` },
  });
  await http.put(`${API}/r`, {});
  expect(seen.map((s) => s.headers['x-request-key'])).toEqual(['k-1', 'k-1']);
  expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
});

test.each([
  ['CR/LF', 'abc\r\nX-Injected: 1'],
  ['non-ASCII', 'clé'],
  ['longer than 255 characters', 'k'.repeat(256)],
])('a caller key with %s is refused with a TypeError before anything is sent', async (_what, key) => {
  const seen = script(API, 'post', '/payments', [201]);
  const { http } = client();
  const error = await rejection(http.post(`${API}/payments`, {}, { retry: { idempotencyKey: key } }));
  expect(error).toBeInstanceOf(TypeError);
  expect(error.message).toMatch(/idempotencyKey must be 1-255 printable ASCII/);
  expect(seen).toHaveLength(0);
});

test('a generator that returns a bad key fails the call with a TypeError, nothing sent', async () => {
  const seen = script(API, 'post', '/payments', [201]);
  const { http } = client({ idempotencyKey: { generate: () => '' } });
  const error = await rejection(http.post(`${API}/payments`, {}));
  expect(error).toBeInstanceOf(TypeError);
  expect(error.message).toMatch(/idempotencyKey.generate\(\)/);
  expect(seen).toHaveLength(0);
});
