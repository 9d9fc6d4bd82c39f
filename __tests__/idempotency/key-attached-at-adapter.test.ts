/**
 * The Idempotency-Key is attached when the call reaches the adapter, in either install order: a
 * request interceptor does not see a generated key, a key it sets is the one sent on every attempt,
 * and a header set to false turns the key off. Real node:http servers on 127.0.0.1.
 */
import axios, { AxiosError } from 'axios';
import type { AxiosInstance, InternalAxiosRequestConfig } from 'axios';
import { retryPlugin } from '../../lib';
import type { RetryPlugin } from '../../lib';
import { rejection } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { blipOnce, serverPerTest } from '../support/test-server';

const t = serverPerTest();
const setup = setupOn(t, 'http');

/** Installs the plugin and a request interceptor on `http`, in the order named. */
function installInOrder(
  order: string,
  http: AxiosInstance,
  plugin: RetryPlugin,
  interceptor: (config: InternalAxiosRequestConfig) => InternalAxiosRequestConfig,
): void {
  if (order === 'plugin first') plugin.install(http);
  http.interceptors.request.use(interceptor);
  if (order !== 'plugin first') plugin.install(http);
}

describe('the Idempotency-Key is attached when the call reaches the adapter', () => {
  test.each(['plugin first', 'interceptor first'])(
    'a request interceptor does not see it (%s); the server and beforeAttempt do',
    async (order) => {
      t.handler = blipOnce;
      const http = axios.create();
      const plugin = retryPlugin({
        random: () => 0,
        budget: false,
        breaker: false,
        idempotencyKey: { serverDedupes: true },
        beforeAttempt: (config) => void inHook.push(config.headers.get('Idempotency-Key')),
      });
      t.plugins.push(plugin);
      const inInterceptor: unknown[] = [];
      const inHook: unknown[] = [];
      installInOrder(order, http, plugin, (config) => {
        inInterceptor.push(config.headers.get('Idempotency-Key'));
        return config;
      });
      const response = await http.post(`${t.server.url}/pay`, { amount: 1 });
      const sent = t.server.requests.map((r) => r.headers['idempotency-key']);
      expect(inInterceptor).toEqual([undefined]);
      expect(sent).toHaveLength(2);
      expect(sent[0]).toBe(sent[1]);
      expect(inHook).toEqual(sent);
      expect(response.config.retryState?.idempotencyKey).toBe(sent[0]);
    },
  );

  test.each(['plugin first', 'interceptor first'])(
    'a key a request interceptor sets is the one sent on every attempt (%s)',
    async (order) => {
      t.handler = blipOnce;
      const http = axios.create();
      const plugin = retryPlugin({ random: () => 0, budget: false, breaker: false });
      t.plugins.push(plugin);
      installInOrder(order, http, plugin, (config) => {
        config.headers.set('Idempotency-Key', 'signed-order-7');
        return config;
      });
      const response = await http.post(`${t.server.url}/pay`, { amount: 1 });
      expect(t.server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['signed-order-7', 'signed-order-7']);
      expect(response.config.retryState?.idempotencyKey).toBe('signed-order-7');
    },
  );

  test('a header set to false turns the key off for that call: none is sent and a 503 POST is not repeated', async () => {
    t.handler = (_req, res) => res.writeHead(503).end();
    const { http } = setup();
    const error = (await rejection(
      http.post(`${t.server.url}/pay`, { amount: 1 }, { headers: { 'Idempotency-Key': false } }),
    )) as unknown as AxiosError;
    expect(t.server.requests).toHaveLength(1);
    expect(t.server.requests[0]!.headers['idempotency-key']).toBeUndefined();
    expect(error.config?.retryState?.idempotencyKey).toBeUndefined();
    expect(error.config?.retryState?.stopReason).toBe('non-idempotent');
  });
});
