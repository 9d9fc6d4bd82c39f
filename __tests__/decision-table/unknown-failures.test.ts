/**
 * Failures the table did not know: a custom adapter's bare failure (no response, no code), a
 * response cut off mid-body and 408 Request Timeout, each retried only where a repeat is safe.
 * Real node:http servers on 127.0.0.1.
 */
import axios, { AxiosError } from 'axios';
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import type { GiveUpEvent } from '../../lib';
import { rejection } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { serverPerTest } from '../support/test-server';

const ADAPTERS = ['http', 'fetch'] as const;

const t = serverPerTest();
const setup = setupOn(t, 'http');

describe('failures the table did not know', () => {
  const bare = (config: InternalAxiosRequestConfig): Promise<AxiosResponse> =>
    config.retryState!.attempts === 1
      ? Promise.reject(new Error('socket went away'))
      : Promise.resolve({ status: 200, statusText: 'OK', headers: {}, config, data: 'ok' });

  test('a custom adapter’s bare failure (no response, no code) is retried for a GET and a keyed POST', async () => {
    const { http } = setup({ idempotencyKey: { serverDedupes: true } });
    expect((await http.get(`${t.server.url}/r`, { adapter: bare })).config.retryState?.attempts).toBe(2);
    expect((await http.post(`${t.server.url}/r`, {}, { adapter: bare })).config.retryState?.attempts).toBe(2);
  });

  test('…and never for a keyless POST (it may have reached the server)', async () => {
    const { http } = setup({ idempotencyKey: false });
    const gaveUp: GiveUpEvent[] = [];
    const error = (await rejection(
      http.post(`${t.server.url}/r`, {}, { adapter: bare, retry: { onGiveUp: (e) => void gaveUp.push(e) } }),
    )) as unknown as Error;
    // The bare failure reaches the caller as it is, as with plain axios (no config: onGiveUp has the state).
    expect(axios.isAxiosError(error)).toBe(false);
    expect(error.message).toBe('socket went away');
    expect(error.stack?.split('\n')[0]).toMatch(
      /^Error: socket went away \(1 attempt over \d+ ms; stopped: non-idempotent/,
    );
    expect(gaveUp).toHaveLength(1);
    expect(gaveUp[0]!.error).toBe(error);
    expect(gaveUp[0]!.retryState).toMatchObject({ attempts: 1, stopReason: 'non-idempotent' });
  });

  describe('a rejection that is not an Error (axios-retry’s suite rejects with `{ message: … }`)', () => {
    /** An adapter that rejects with what `make` returns, counting its calls. */
    function rejecting(make: () => unknown) {
      const made: unknown[] = [];
      const adapter = (): Promise<AxiosResponse> => {
        const value = make();
        made.push(value);
        return Promise.reject(value);
      };
      return { adapter, made };
    }
    const VALUES: Array<[string, () => unknown]> = [
      ['a plain object', () => ({ message: 'network error' })],
      ['a string', () => 'network error'],
      ['undefined', () => undefined],
    ];

    test.each(VALUES)(
      '%s: the call rejects with that very value, as plain axios does; not retried, one onGiveUp',
      async (_name, make) => {
        const theirs = rejecting(make);
        const plain = await axios.get(`${t.server.url}/r`, { adapter: theirs.adapter }).catch((e: unknown) => e);
        expect(plain).toBe(theirs.made[0]);

        const gaveUp: GiveUpEvent[] = [];
        const { http } = setup({ onGiveUp: (e) => void gaveUp.push(e) });
        const ours = rejecting(make);
        const error = await http.get(`${t.server.url}/r`, { adapter: ours.adapter }).then(
          () => 'resolved',
          (e: unknown) => e,
        );
        expect(ours.made).toHaveLength(1);
        expect(error).toBe(ours.made[0]);
        expect(error).toEqual(make()); // untouched: nothing added to it
        expect(gaveUp.map((e) => [e.error, e.stopReason, e.retryState.attempts])).toEqual([
          [ours.made[0], 'not-retryable', 1],
        ]);
      },
    );

    test('retried when shouldRetry says so: the call rejects with the last attempt’s very value, one onGiveUp', async () => {
      const gaveUp: GiveUpEvent[] = [];
      const { http } = setup({ retries: 2, shouldRetry: () => true, onGiveUp: (e) => void gaveUp.push(e) });
      const ours = rejecting(() => ({ message: 'network error' }));
      const error = await http.get(`${t.server.url}/r`, { adapter: ours.adapter }).catch((e: unknown) => e);
      expect(ours.made).toHaveLength(3);
      expect(error).toBe(ours.made[2]);
      expect(error).toEqual({ message: 'network error' });
      expect(gaveUp.map((e) => [e.error, e.stopReason, e.retryState.attempts])).toEqual([
        [ours.made[2], 'retries-exhausted', 3],
      ]);
    });
  });

  test.each(ADAPTERS)('a response cut off mid-body is retried for a GET (%s adapter)', async (adapter) => {
    t.handler = (_req, res, index) => {
      if (index > 0) return void res.writeHead(200, { 'content-length': '2' }).end('ok');
      res.writeHead(200, { 'content-length': '1000' });
      res.write('x'.repeat(100));
      setTimeout(() => res.socket?.destroy(), 10);
    };
    const { http } = setup({}, adapter);
    const response = await http.get(`${t.server.url}/r`);
    expect(response.data).toBe('ok');
    expect(response.config.retryState?.attempts).toBe(2);
  });

  test('a keyless POST cut off mid-body is not retried (the server already answered)', async () => {
    t.handler = (_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('x'.repeat(100));
      setTimeout(() => res.socket?.destroy(), 10);
    };
    const { http } = setup({ idempotencyKey: false });
    const error = (await rejection(http.post(`${t.server.url}/r`, {}))) as unknown as AxiosError;
    expect(error.config?.retryState?.stopReason).toBe('non-idempotent');
    expect(t.server.requests).toHaveLength(1);
  });

  test('408 Request Timeout is retried, a keyless POST too (RFC 9110: the server did not process it)', async () => {
    t.handler = (_req, res, index) => res.writeHead(index % 2 === 0 ? 408 : 200).end();
    const { http } = setup();
    expect((await http.get(`${t.server.url}/r`)).status).toBe(200);
    const response = await http.post(`${t.server.url}/r`, { a: 1 }, { retry: { idempotencyKey: false } });
    expect(response.status).toBe(200);
    expect(t.server.requests).toHaveLength(4);
  });
});
