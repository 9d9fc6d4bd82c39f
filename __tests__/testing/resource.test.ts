import axios from 'axios';
import type { AxiosError } from 'axios';
import { createIdempotentResource } from '../../lib/testing';
import { useFaultServer } from '../support/testing/fixture';

const fx = useFaultServer();
// The idempotent resource dedupes keys, and the client is told so.
const retryingClient = () => fx.client({ random: () => 0.5, idempotencyKey: { serverDedupes: true } });

describe('createIdempotentResource behind the fault server', () => {
  test('a reset after commit, retried with the same key, creates exactly one payment', async () => {
    const payments = createIdempotentResource();
    const server = await fx.start({
      routes: { 'POST /v1/payments': { steps: ['503', { reset: 'after-commit' }, '201'], resource: payments } },
    });
    const http = retryingClient();
    const response = await http.post(`${server.url}/v1/payments`, { amount: 42 });

    expect(response.status).toBe(201);
    expect(response.headers['idempotent-replayed']).toBe('true');
    expect(payments.created).toBe(1);
    const key = response.config.retryState!.idempotencyKey!;
    expect(payments.createdFor(key)).toBe(1);
    expect(payments.requestsWith(key)).toBe(3);
    expect(response.data).toEqual({ id: 'res_1', idempotencyKey: key });
    expect(server.requestsTo('POST /v1/payments').map((r) => r.headers['idempotency-key'])).toEqual([key, key, key]);
  });

  test('the same scenario without a key shows the double charge the key prevents', async () => {
    const payments = createIdempotentResource();
    const server = await fx.start({
      routes: { 'POST /v1/payments': { steps: [{ reset: 'after-commit' }, '201'], resource: payments } },
    });
    // A naive client that re-sends a POST after a dropped connection, with no key.
    const url = `${server.url}/v1/payments`;
    await axios.post(url, { amount: 42 }).catch(() => undefined);
    await axios.post(url, { amount: 42 });
    expect(payments.created).toBe(2);
    expect(payments.resources.map((r) => r.key)).toEqual([undefined, undefined]);
  });

  test('the plugin does not retry a keyless POST after a reset, so nothing is created twice', async () => {
    const payments = createIdempotentResource();
    const server = await fx.start({
      routes: { 'POST /v1/payments': { steps: [{ reset: 'after-commit' }, '201'], resource: payments } },
    });
    const http = retryingClient();
    const error = (await http
      .post(`${server.url}/v1/payments`, { amount: 42 }, { retry: { idempotencyKey: false } })
      .catch((e: unknown) => e)) as AxiosError;
    expect(error.code).toBe('ECONNRESET');
    expect(error.config?.retryState?.stopReason).toBe('non-idempotent');
    expect(payments.created).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  test('a fault before commit creates nothing; a 504 with commit: true does the work and still fails', async () => {
    const payments = createIdempotentResource();
    const server = await fx.start({
      routes: {
        'POST /v1/orders': {
          steps: [{ reset: 'before-commit' }, { status: 504, commit: true }, '200'],
          resource: payments,
        },
      },
    });
    const url = `${server.url}/v1/orders`;
    const headers = { 'Idempotency-Key': 'order-42' };
    await axios.post(url, 'a', { headers }).catch(() => undefined);
    expect(payments.created).toBe(0);
    const gateway = (await axios.post(url, 'a', { headers }).catch((e: unknown) => e)) as AxiosError;
    expect(gateway.response?.status).toBe(504);
    expect(payments.created).toBe(1);
    const replay = await axios.post(url, 'a', { headers });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(payments.created).toBe(1);
  });

  test('the same key with a different body is refused with 422 and creates nothing', async () => {
    const payments = createIdempotentResource({ keyHeader: 'X-Request-Key' });
    const server = await fx.start({ routes: { 'POST /v1/payments': { steps: ['201'], resource: payments } } });
    const url = `${server.url}/v1/payments`;
    const headers = { 'X-Request-Key': 'k' };
    await axios.post(url, { amount: 1 }, { headers });
    const error = (await axios.post(url, { amount: 2 }, { headers }).catch((e: unknown) => e)) as AxiosError;
    expect(error.response?.status).toBe(422);
    expect(payments.created).toBe(1);
    expect(payments.requestsWith('k')).toBe(2);
  });
});
