/**
 * One logical call, however many attempts: user interceptors and transforms run once and every
 * attempt sends the same bytes; onRetry's changes reach the next attempt; a stream body is sent
 * once; a config the caller re-sends is a new call.
 */
import axios from 'axios';
import type { AxiosError } from 'axios';
import { Readable } from 'node:stream';
import { retryPlugin } from '../../lib';
import { client, rejection } from '../support/helpers';
import { closeAll, script, useNock } from '../support/nock-helpers';

const API = 'http://api.test';

useNock();
afterEach(closeAll);

describe('once per logical call', () => {
  test('user interceptors and transforms run once per call; every attempt sends identical bytes', async () => {
    const seen = script(API, 'post', '/payments', [503, 502, 201]);
    const http = axios.create({
      transformRequest: [
        (data: unknown) => {
          counts.transformRequest++;
          return JSON.stringify({ ...(data as object), stamp: counts.transformRequest });
        },
      ],
      transformResponse: [
        (data: unknown) => {
          counts.transformResponse++;
          return data;
        },
      ],
      headers: { 'Content-Type': 'application/json' },
    });
    const counts = { request: 0, response: 0, transformRequest: 0, transformResponse: 0 };
    http.interceptors.request.use((config) => {
      counts.request++;
      return config;
    });
    // The server dedupes keys, so a generated one makes the POST safe to repeat.
    const plugin = retryPlugin({
      random: () => 0,
      budget: false,
      breaker: false,
      idempotencyKey: { serverDedupes: true },
    });
    plugin.install(http);
    http.interceptors.response.use((response) => {
      counts.response++;
      return response;
    });
    const response = await http.post(`${API}/payments`, { amount: 10 });
    expect(response.status).toBe(201);
    expect(seen).toHaveLength(3);
    expect(counts).toEqual({ request: 1, response: 1, transformRequest: 1, transformResponse: 1 });
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);
    expect(JSON.parse(seen[0]!.body)).toEqual({ amount: 10, stamp: 1 });
    await plugin.close();
  });

  test('onRetry may change headers for the next attempt (a refreshed token)', async () => {
    const seen = script(API, 'get', '/r', [503, 503, 200]);
    let token = 0;
    const { http } = client({
      onRetry: async ({ config }) => {
        await Promise.resolve();
        config.headers.set('Authorization', `Bearer t${++token}`);
      },
    });
    await http.get(`${API}/r`, { headers: { Authorization: 'Bearer t0' } });
    expect(seen.map((s) => s.headers.authorization)).toEqual(['Bearer t0', 'Bearer t1', 'Bearer t2']);
  });

  test('an onRetry that throws fails the call with its own last error (hook-failed) and sends nothing more', async () => {
    const seen = script(API, 'get', '/r', [503, 200]);
    const hookError = new Error('hook broke');
    const { http } = client({
      onRetry: () => {
        throw hookError;
      },
    });
    const error = (await rejection(http.get(`${API}/r`))) as unknown as AxiosError;
    expect(error.response?.status).toBe(503);
    expect(error.config?.retryState).toMatchObject({ attempts: 1, delaysMs: [], stopReason: 'hook-failed', hookError });
    expect(seen).toHaveLength(1);
  });

  test('a stream body within the replay bound is sent again, byte for byte, under one key', async () => {
    const seen = script(API, 'put', '/upload', [503, 200]);
    const { http } = client();
    const response = await http.put(`${API}/upload`, Readable.from(['chunk', '-two']), {
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(response.status).toBe(200);
    expect(seen.map((s) => s.body)).toEqual(['chunk-two', 'chunk-two']);
  });

  test('a stream body past the replay bound is sent once, whole, and the call stops body-not-replayable', async () => {
    const seen = script(API, 'put', '/upload', [503, 200]);
    const { http } = client();
    const error = (await rejection(
      http.put(`${API}/upload`, Readable.from(['chunk', '-two']), {
        headers: { 'Content-Type': 'text/plain' },
        retry: { replay: { maxBytes: 6 } },
      }),
    )) as unknown as AxiosError;
    expect(seen.map((s) => s.body)).toEqual(['chunk-two']);
    expect(error.config?.retryState?.stopReason).toBe('body-not-replayable');
  });

  test('a failed config re-sent by the caller is a new logical call, not a nested retry loop', async () => {
    const seen = script(API, 'get', '/r', [503, 503, 200]);
    const { http } = client({ retries: 1 });
    const first = (await rejection(http.get(`${API}/r`))) as unknown as AxiosError;
    expect(seen).toHaveLength(2);
    const again = await http.request(first.config!);
    expect(again.status).toBe(200);
    expect(again.config.retryState).toEqual({ attempts: 1, delaysMs: [] });
  });
});
