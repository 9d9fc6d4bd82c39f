/** The helpers with axios's fetch adapter (what browsers and edge runtimes use), in Node's fetch. */
import { createIdempotentResource } from '../../lib/testing';
import { useFaultServer } from '../support/testing/fixture';

const fx = useFaultServer();
// The idempotent resource dedupes keys, and the client is told so.
const fetchClient = () =>
  fx.client({ random: () => 0.5, idempotencyKey: { serverDedupes: true } }, { adapter: 'fetch' });

test('503, 503, 200 through the fetch adapter: three requests, one success', async () => {
  const server = await fx.start({ routes: { 'GET /v1/items': ['503', '503', { body: { items: [1] } }] } });
  const response = await fetchClient().get(`${server.url}/v1/items`);
  expect(response.status).toBe(200);
  expect(response.data).toEqual({ items: [1] });
  expect(server.requestsTo('GET /v1/items')).toHaveLength(3);
});

test('a POST through the fetch adapter carries the same key on every attempt and creates one resource', async () => {
  const payments = createIdempotentResource();
  const server = await fx.start({
    routes: { 'POST /v1/payments': { steps: ['503', { status: 504, commit: true }, '201'], resource: payments } },
  });
  const response = await fetchClient().post(`${server.url}/v1/payments`, { amount: 1 });
  expect(response.status).toBe(201);
  expect(payments.created).toBe(1);
  const keys = server.requests.map((r) => r.headers['idempotency-key']);
  expect(new Set(keys).size).toBe(1);
  expect(keys).toHaveLength(3);
});

test('a dropped connection under the fetch adapter is retried like one under the http adapter', async () => {
  const payments = createIdempotentResource();
  const server = await fx.start({
    routes: { 'POST /v1/payments': { steps: [{ reset: 'after-commit' }, '201'], resource: payments } },
  });
  const reasons: string[] = [];
  const http = fx.client(
    { onRetry: ({ reason }) => void reasons.push(reason), idempotencyKey: { serverDedupes: true } },
    { adapter: 'fetch' },
  );
  const response = await http.post(`${server.url}/v1/payments`, { amount: 1 });
  expect(response.status).toBe(201);
  expect(payments.created).toBe(1);
  expect(server.requests).toHaveLength(2);
  // fetch reports a dropped socket as axios's generic ERR_NETWORK; the plugin looks through it to
  // undici's own code, UND_ERR_SOCKET, and the key makes it retryable.
  expect(reasons).toEqual(['UND_ERR_SOCKET']);
});
