/**
 * A failed call's message tells the story: axios's own words first, then what the plugin did —
 * attempts, the time they took, why it stopped, and for a write the origin to declare. The error
 * stays the last attempt's (`AxiosError`, its `code`, its `response`). The plugin's clock is
 * injected and moved by the server (250 ms per request), so the times are exact; the real waits are
 * a few ms. Real node:http server on 127.0.0.1.
 */
import axios, { AxiosError } from 'axios';
import { CircuitOpenError, retryPlugin } from '../../lib';
import type { RetryPluginOptions } from '../../lib';
import { serverPerTest } from '../support/test-server';

const t = serverPerTest();
let clock = 0;

function client(options: RetryPluginOptions = {}) {
  const plugin = retryPlugin({ baseDelayMs: 2, random: () => 0.5, now: () => clock, ...options });
  t.plugins.push(plugin);
  const http = axios.create();
  plugin.install(http);
  return http;
}

beforeEach(() => {
  clock = 1_000_000;
  t.handler = (req, res) => {
    clock += 250;
    if (req.url === '/missing') return res.writeHead(404).end();
    if (req.url === '/hold') return; // never answers: the attempt's timeout ends it
    res.writeHead(503).end();
  };
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('the call resolved');
    },
    (e: unknown) => e as AxiosError,
  );

test('4 attempts that all got a 503: retries-exhausted, the last 503 still on the error', async () => {
  const error = await failure(client({ retries: 3 }).get(`${t.server.url}/down`));
  expect(error.message).toBe('Request failed with status code 503 (4 attempts over 1.0 s; stopped: retries-exhausted)');
  expect(error).toBeInstanceOf(AxiosError);
  expect(error.code).toBe('ERR_BAD_RESPONSE');
  expect(error.response?.status).toBe(503);
});

test('a 404: one attempt, not-retryable', async () => {
  const error = await failure(client().get(`${t.server.url}/missing`));
  expect(error.message).toBe('Request failed with status code 404 (1 attempt over 250 ms; stopped: not-retryable)');
});

test('a POST to 127.0.0.1 while localhost was declared: non-idempotent, naming both', async () => {
  const port = new URL(t.server.url).port;
  const http = client({ idempotencyKey: { serverDedupes: [`http://localhost:${port}`] } });
  const error = await failure(http.post(`${t.server.url}/payments`, { amount: 1 }));
  expect(error.message).toBe(
    `Request failed with status code 503 (1 attempt over 250 ms; stopped: non-idempotent — a POST to ` +
      `http://127.0.0.1:${port} may have been processed, and that origin is not in ` +
      `idempotencyKey.serverDedupes (which lists http://localhost:${port}))`,
  );
  expect(t.server.requests).toHaveLength(1);
});

test('a keyless PATCH: non-idempotent, and it says there was no key', async () => {
  const error = await failure(client({ idempotencyKey: false }).patch(`${t.server.url}/orders/1`, {}));
  expect(error.message).toMatch(
    /\(1 attempt over 250 ms; stopped: non-idempotent — a PATCH to http:\/\/127\.0\.0\.1:\d+ may have been processed, and it carries no Idempotency-Key\)$/,
  );
});

test('a deadline of 500 ms under an axios timeout of 5 s: the timeout words, and the deadline named', async () => {
  // The clock is the plugin's: it reads 500 ms gone once the held attempt is cut off at the deadline.
  const http = client({ deadlineMs: 500, now: () => clock });
  const call = failure(http.get(`${t.server.url}/hold`, { timeout: 5000 }));
  const error = await call;
  expect(error.message).toMatch(/^timeout of 500ms exceeded \(1 attempt over \d+ ms; stopped: deadline of 500 ms\)$/);
  expect(error.code).toBe('ECONNABORTED');
});

test('an onRetry that throws: hook-failed with the hook’s words, the call’s own 503 on the error', async () => {
  const http = client({
    onRetry: () => {
      throw new TypeError('token refresh failed');
    },
  });
  const error = await failure(http.get(`${t.server.url}/down`));
  expect(error.message).toBe(
    'Request failed with status code 503 (1 attempt over 250 ms; stopped: hook-failed: TypeError: token refresh failed)',
  );
  expect(error.response?.status).toBe(503);
});

test('a breaker that is open: the CircuitOpenError says nothing was sent', async () => {
  const http = client({ retries: 0, breaker: { volumeThreshold: 5, errorThresholdPercentage: 50 } });
  for (let i = 0; i < 5; i++) await failure(http.get(`${t.server.url}/down`));
  const error = await failure(http.get(`${t.server.url}/down`));
  expect(error).toBeInstanceOf(CircuitOpenError);
  expect(error.message).toMatch(
    /^axios-resilience: circuit open for http:\/\/127\.0\.0\.1:\d+; the request was not sent \(nothing sent; stopped: circuit-open\)$/,
  );
});

test('the message is told once: a config re-sent by hand tells its own story, not the last one twice', async () => {
  const http = client({ retries: 0 });
  const first = await failure(http.get(`${t.server.url}/down`));
  const second = await failure(http.request(first.config!));
  expect(second.message).toBe(
    'Request failed with status code 503 (1 attempt over 250 ms; stopped: retries-exhausted)',
  );
  expect(first.message).toBe('Request failed with status code 503 (1 attempt over 250 ms; stopped: retries-exhausted)');
});

test('an uncaught failure prints the story: the first line of the stack says it too', async () => {
  const error = await failure(client({ retries: 1 }).get(`${t.server.url}/down`));
  expect(error.stack?.split('\n')[0]).toBe(
    'AxiosError: Request failed with status code 503 (2 attempts over 500 ms; stopped: retries-exhausted)',
  );
});
