/**
 * A key the caller sets is kept and makes the call keyed, even with idempotencyKey: false; re-sending
 * a response's config is a new operation with a new key, re-sending error.config keeps its key.
 * Real node:http servers on 127.0.0.1.
 */
import axios, { AxiosError, AxiosHeaders } from 'axios';
import { retryPlugin } from '../../lib';
import { rejection } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { blipOnce, serverPerTest } from '../support/test-server';

const t = serverPerTest();
const setup = setupOn(t, 'http');

describe('Idempotency-Key: a key you set yourself is kept, and makes the call keyed', () => {
  test.each([
    ['an AxiosHeaders header', () => ({ headers: new AxiosHeaders({ 'Idempotency-Key': 'mine-1' }) })],
    ['a plain-object header in lower case', () => ({ headers: { 'idempotency-key': 'mine-1' } })],
  ])('with idempotencyKey: false, a POST carrying %s is retried', async (_name, config) => {
    t.handler = blipOnce;
    const { http } = setup({ idempotencyKey: false });
    const response = await http.post(`${t.server.url}/pay`, { amount: 1 }, config());
    expect(response.status).toBe(200);
    expect(t.server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['mine-1', 'mine-1']);
    expect(response.config.retryState?.idempotencyKey).toBe('mine-1');
  });

  test('with idempotencyKey: false, a key in the instance defaults makes POSTs keyed', async () => {
    t.handler = blipOnce;
    const http = axios.create({ headers: { common: { 'Idempotency-Key': 'from-defaults' } } });
    const plugin = retryPlugin({ idempotencyKey: false, random: () => 0, budget: false, breaker: false });
    t.plugins.push(plugin);
    plugin.install(http);
    const response = await http.post(`${t.server.url}/pay`, { amount: 1 });
    expect(response.status).toBe(200);
    expect(t.server.requests).toHaveLength(2);
  });

  test('re-sending a successful response’s config is a new operation: it gets a new key', async () => {
    const { http } = setup();
    const first = await http.post(`${t.server.url}/pay`, { amount: 1 });
    const again = await http.request(first.config);
    const [a, b] = t.server.requests.map((r) => r.headers['idempotency-key']);
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(b).not.toBe(a);
    expect(again.config.retryState?.idempotencyKey).toBe(b);
  });

  test('re-sending a failed call’s error.config keeps its key: the same operation, retried by hand', async () => {
    t.handler = (_req, res, index) => res.writeHead(index === 0 ? 503 : 200).end();
    const { http } = setup({ retries: 0 });
    const error = (await rejection(http.post(`${t.server.url}/pay`, { amount: 1 }))) as unknown as AxiosError;
    await http.request(error.config!);
    const [a, b] = t.server.requests.map((r) => r.headers['idempotency-key']);
    expect(b).toBe(a);
  });

  test('through any chain of re-sends: a success that came from re-sending error.config, re-sent, gets a new key', async () => {
    t.handler = (_req, res, index) => res.writeHead(index === 0 ? 503 : 200).end();
    const { http } = setup({ retries: 0 });
    const error = (await rejection(http.post(`${t.server.url}/pay`, { amount: 1 }))) as unknown as AxiosError;
    const retriedByHand = await http.request(error.config!);
    const again = await http.request(retriedByHand.config);
    const [a, b, c] = t.server.requests.map((r) => r.headers['idempotency-key']);
    expect(b).toBe(a);
    expect(c).toBeDefined();
    expect(c).not.toBe(a);
    expect(again.config.retryState?.idempotencyKey).toBe(c);
  });

  test('the plugin’s own key carried by a re-sent error.config is still its own: not a deduped key of the caller', async () => {
    // A 503 for the first two requests: the re-sent POST must stop as the first did (its server is
    // not declared to dedupe), not be repeated as if the caller had chosen the key.
    t.handler = (_req, res, index) => res.writeHead(index < 2 ? 503 : 200).end();
    const { http } = setup({ retries: 1 });
    const error = (await rejection(http.post(`${t.server.url}/pay`, { amount: 1 }))) as unknown as AxiosError;
    expect(error.config?.retryState?.stopReason).toBe('non-idempotent');
    const again = (await rejection(http.request(error.config!))) as unknown as AxiosError;
    expect(again.config?.retryState?.stopReason).toBe('non-idempotent');
    expect(t.server.requests).toHaveLength(2);
  });
});
