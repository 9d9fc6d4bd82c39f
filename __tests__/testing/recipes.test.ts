/** The short recipes at the end of docs/guides/testing.md, as tests. */
import type { AxiosError } from 'axios';
import type { RetryPluginOptions } from '../../lib';
import { useFaultServer } from '../support/testing/fixture';

const fx = useFaultServer();
const client = (options: RetryPluginOptions) => fx.client(options);

test('it gives up after N attempts', async () => {
  const server = await fx.start({ routes: { 'GET /down': ['503'] } });
  const http = client({ retries: 2 });
  await expect(http.get(`${server.url}/down`)).rejects.toMatchObject({
    config: { retryState: { attempts: 3, stopReason: 'retries-exhausted' } },
  });
  expect(server.requestsTo('GET /down')).toHaveLength(3);
});

test('it honours Retry-After', async () => {
  const server = await fx.start({
    routes: { 'GET /limited': [{ status: 429, headers: { 'Retry-After': '1' } }, '200'] },
  });
  // A 1 s Retry-After is waited for real: keep it to this one test, or lower maxDelayMs.
  const http = client({ maxDelayMs: 200 });
  const response = await http.get(`${server.url}/limited`);
  expect(response.config.retryState?.delaysMs).toEqual([200]);
});

test('a POST without a key is not retried', async () => {
  const server = await fx.start({ routes: { 'POST /v1/payments': [{ reset: 'after-commit' }, '201'] } });
  const http = client({});
  const error = (await http
    .post(`${server.url}/v1/payments`, {}, { retry: { idempotencyKey: false } })
    .catch((e: unknown) => e)) as AxiosError;
  expect(error.config?.retryState?.stopReason).toBe('non-idempotent');
  expect(server.requests).toHaveLength(1);
});

test('a hung server is cut off by the timeout and the retry succeeds', async () => {
  const server = await fx.start({ routes: { 'GET /slow': [{ delayMs: 15_000 }, '200'] } });
  const http = client({ random: () => 0 });
  const started = Date.now();
  const response = await http.get(`${server.url}/slow`, { timeout: 100 });
  expect(response.status).toBe(200);
  expect(response.config.retryState?.attempts).toBe(2);
  expect(Date.now() - started).toBeLessThan(5000);
});
