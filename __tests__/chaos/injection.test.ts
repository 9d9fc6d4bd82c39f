/**
 * Every fault kind, in both phases, over axios's http and fetch adapters, against a real node:http
 * server on 127.0.0.1: what the server received (nothing for a fault injected before the send), the
 * error the caller gets (made as that adapter makes it), the retries the decision table allows for
 * the real failure, and the marks that tell an injected failure from a real one.
 */
import type { AxiosError } from 'axios';
import { isRetryableFailure } from '../../lib';
import type { ChaosFault, ChaosMatch, RetryPluginOptions } from '../../lib';
import { rejection, storyOf } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { serverPerTest, startServer } from '../support/test-server';

const t = serverPerTest();
const setup = setupOn(t);

/** A client whose every attempt gets `fault`, recording what onRetry was told. */
function chaosClient(adapter: 'http' | 'fetch', fault: ChaosFault, options: RetryPluginOptions = {}) {
  const events: Array<{ reason: string; injected: boolean | undefined }> = [];
  const { http, plugin } = setup(
    {
      retries: 2,
      chaos: { faults: [fault] },
      onRetry: ({ reason, injected }) => void events.push({ reason, injected }),
      ...options,
    },
    adapter,
  );
  return { http, plugin, events };
}

async function failure(promise: Promise<unknown>): Promise<AxiosError> {
  return (await rejection(promise)) as unknown as AxiosError;
}

describe.each(['http', 'fetch'] as const)('over the %s adapter', (adapter) => {
  describe("phase 'before': nothing reaches the server", () => {
    test('an injected 503 is the AxiosError axios makes for a 503, and is retried as one', async () => {
      const fault = { rate: 1, status: 503, headers: { 'X-Chaos': 'yes' }, body: { error: 'down' } };
      const { http, events } = chaosClient(adapter, fault);
      const error = await failure(http.get(`${t.server.url}/v1/items`));
      expect(t.server.requests).toHaveLength(0);
      expect(error.isAxiosError).toBe(true);
      expect(error.code).toBe('ERR_BAD_RESPONSE');
      expect(storyOf(error)).toEqual({
        words: 'Request failed with status code 503',
        story: expect.stringMatching(/^3 attempts over \d+ ms; stopped: retries-exhausted$/),
      });
      expect(error.status).toBe(503);
      expect(error.response?.status).toBe(503);
      expect(error.response?.statusText).toBe('Service Unavailable');
      expect(error.response?.headers['x-chaos']).toBe('yes');
      // The body went through axios's transformResponse, as a real one does.
      expect(error.response?.data).toEqual({ error: 'down' });
      expect(error.config?.retryState).toMatchObject({ attempts: 3, injected: 3, stopReason: 'retries-exhausted' });
      expect((error as unknown as { injected: unknown }).injected).toEqual({ fault: 0, phase: 'before', kind: 503 });
      expect(events).toEqual([
        { reason: '503', injected: true },
        { reason: '503', injected: true },
      ]);
    });

    test('a status validateStatus accepts resolves, as axios resolves it', async () => {
      const { http } = chaosClient(adapter, { rate: 1, status: 503, body: 'busy' });
      const response = await http.get(`${t.server.url}/v1/items`, { validateStatus: () => true });
      expect(response.status).toBe(503);
      expect(response.data).toBe('busy');
      expect(response.config.retryState).toMatchObject({ attempts: 1, injected: 1 });
      expect(t.server.requests).toHaveLength(0);
    });

    test('an injected 404 is not retried (not-retryable), as a real one is not', async () => {
      const { http } = chaosClient(adapter, { rate: 1, status: 404 });
      const error = await failure(http.get(`${t.server.url}/v1/items`));
      expect(error.code).toBe('ERR_BAD_REQUEST');
      expect(error.config?.retryState).toMatchObject({ attempts: 1, injected: 1, stopReason: 'not-retryable' });
    });

    // [injected code, the code the caller sees over http, over fetch, the reason the table gives over http, over fetch]
    test.each([
      ['ECONNRESET', 'ECONNRESET', 'ERR_NETWORK', 'ECONNRESET', 'UND_ERR_SOCKET'],
      ['ECONNREFUSED', 'ECONNREFUSED', 'ERR_NETWORK', 'ECONNREFUSED', 'ECONNREFUSED'],
      ['ETIMEDOUT', 'ETIMEDOUT', 'ETIMEDOUT', 'ETIMEDOUT', 'ETIMEDOUT'],
      ['ECONNABORTED', 'ECONNABORTED', 'ETIMEDOUT', 'ECONNABORTED', 'ETIMEDOUT'],
      ['ENOTFOUND', 'ENOTFOUND', 'ERR_NETWORK', 'ENOTFOUND', 'ENOTFOUND'],
      ['EPIPE', 'EPIPE', 'ERR_NETWORK', 'EPIPE', 'UND_ERR_SOCKET'],
      ['ERR_NETWORK', 'ERR_NETWORK', 'ERR_NETWORK', 'ERR_NETWORK', 'ERR_NETWORK'],
    ])('error %s: the caller sees the adapter’s own error and the GET is retried', async (code, ...expected) => {
      const [httpCode, fetchCode, httpReason, fetchReason] = expected;
      const { http, events } = chaosClient(adapter, { rate: 1, error: code });
      const error = await failure(http.get(`${t.server.url}/v1/items`, { timeout: 1000 }));
      expect(t.server.requests).toHaveLength(0);
      expect(error.code).toBe(adapter === 'http' ? httpCode : fetchCode);
      expect(error.response).toBeUndefined();
      expect(error.config?.retryState).toMatchObject({ attempts: 3, injected: 3, stopReason: 'retries-exhausted' });
      expect((error as unknown as { injected: unknown }).injected).toEqual({ fault: 0, phase: 'before', kind: code });
      const reason = adapter === 'http' ? httpReason : fetchReason;
      expect(events).toEqual([
        { reason, injected: true },
        { reason, injected: true },
      ]);
    });

    test('a keyless POST: an injected refusal is retried (never sent), an injected reset is not (non-idempotent)', async () => {
      const refused = chaosClient(adapter, { rate: 1, error: 'ECONNREFUSED' }, { idempotencyKey: false });
      const first = await failure(refused.http.post(`${t.server.url}/v1/payments`, { amount: 1 }));
      expect(first.config?.retryState).toMatchObject({ attempts: 3, stopReason: 'retries-exhausted' });
      const reset = chaosClient(adapter, { rate: 1, error: 'ECONNRESET' }, { idempotencyKey: false });
      const second = await failure(reset.http.post(`${t.server.url}/v1/payments`, { amount: 1 }));
      expect(second.config?.retryState).toMatchObject({ attempts: 1, injected: 1, stopReason: 'non-idempotent' });
      expect(t.server.requests).toHaveLength(0);
    });
  });

  describe("phase 'after': the server does the work, the client sees the fault", () => {
    test('an injected 504 after each GET: the server saw every attempt', async () => {
      const { http, events } = chaosClient(adapter, { rate: 1, status: 504, phase: 'after' });
      const error = await failure(http.get(`${t.server.url}/v1/items`));
      expect(t.server.requests).toHaveLength(3);
      expect(error.response?.status).toBe(504);
      expect(error.request).toBeDefined();
      expect(error.config?.retryState).toMatchObject({ attempts: 3, injected: 3, stopReason: 'retries-exhausted' });
      expect((error as unknown as { injected: unknown }).injected).toEqual({ fault: 0, phase: 'after', kind: 504 });
      expect(events.map((e) => e.reason)).toEqual(['504', '504']);
    });

    test('the 504 trap: a POST to a server not declared to dedupe is processed once and not repeated', async () => {
      const { http } = chaosClient(adapter, { rate: 1, status: 504, phase: 'after' });
      const error = await failure(http.post(`${t.server.url}/v1/payments`, { amount: 1 }));
      expect(t.server.requests).toHaveLength(1);
      expect(error.config?.retryState).toMatchObject({ attempts: 1, injected: 1, stopReason: 'non-idempotent' });
      expect(error.config?.retryState?.idempotencyKey).toBe(t.server.requests[0]!.headers['idempotency-key']);
    });

    test('an injected reset after each GET: the server saw every attempt, the caller the adapter’s reset', async () => {
      const { http } = chaosClient(adapter, { rate: 1, error: 'ECONNRESET', phase: 'after' });
      const error = await failure(http.get(`${t.server.url}/v1/items`));
      expect(t.server.requests).toHaveLength(3);
      expect(error.code).toBe(adapter === 'http' ? 'ECONNRESET' : 'ERR_NETWORK');
      expect(error.config?.retryState).toMatchObject({ attempts: 3, injected: 3 });
    });

    test('an attempt that failed without an answer keeps its own failure', async () => {
      const closed = await startServer(() => undefined);
      const url = `${closed.url}/v1/items`;
      await closed.close();
      const { http } = chaosClient(adapter, { rate: 1, status: 504, phase: 'after' }, { retries: 0 });
      const error = await failure(http.get(url));
      expect(error.response).toBeUndefined();
      expect(isRetryableFailure(error).reason).toBe('ECONNREFUSED');
      expect(error.config?.retryState).toMatchObject({ attempts: 1, injected: 0 });
    });
  });

  describe('an injected failure is classified as the real one', () => {
    /** What the caller and the decision table see of a failure. */
    function seen(error: AxiosError) {
      return {
        code: error.code,
        message: storyOf(error).words,
        stopped: storyOf(error).story?.replace(/ over \d+ ms/, ''),
        get: isRetryableFailure(error, { method: 'GET' }),
        keylessPost: isRetryableFailure(error, { method: 'POST', keyed: false }),
        causeCode: (error.cause as { code?: unknown } | undefined)?.code,
      };
    }

    test('a reset', async () => {
      t.handler = (req, res) => res.socket?.destroy();
      const real = setup({ retries: 0 }, adapter).http;
      const injected = chaosClient(adapter, { rate: 1, error: 'ECONNRESET' }, { retries: 0 }).http;
      const url = `${t.server.url}/r`;
      expect(seen(await failure(injected.get(url)))).toEqual(seen(await failure(real.get(url))));
    });

    test('a refused connection', async () => {
      const closed = await startServer(() => undefined);
      const url = `${closed.url}/r`;
      await closed.close();
      const real = setup({ retries: 0 }, adapter).http;
      const injected = chaosClient(adapter, { rate: 1, error: 'ECONNREFUSED' }, { retries: 0 }).http;
      const [a, b] = [seen(await failure(injected.get(url))), seen(await failure(real.get(url)))];
      expect(a).toEqual(b);
    });

    test('a timeout (axios’s ECONNABORTED)', async () => {
      t.handler = () => undefined;
      const real = setup({ retries: 0 }, adapter).http;
      const injected = chaosClient(adapter, { rate: 1, error: 'ECONNABORTED' }, { retries: 0 }).http;
      const url = `${t.server.url}/r`;
      expect(seen(await failure(injected.get(url, { timeout: 100 })))).toEqual(
        seen(await failure(real.get(url, { timeout: 100 }))),
      );
    });
  });
});

describe('match: which attempts a fault applies to', () => {
  const fault = (match: ChaosMatch): ChaosFault => ({ rate: 1, status: 503, match });

  test.each([
    ['the method', { method: 'post' }, ['POST /v1/payments', 'POST /v1/payments/42'], ['GET /v1/payments']],
    [
      'a path and the paths below it',
      { path: '/v1/payments' },
      ['GET /v1/payments', 'POST /v1/payments/42'],
      ['GET /v1/paymentsx', 'GET /v2/payments'],
    ],
    [
      'a RegExp over the path (not the query)',
      { path: /^\/v1\/items\/\d+$/ },
      ['GET /v1/items/7?x=1'],
      ['GET /v1/items/x', 'GET /v1/items'],
    ],
    [
      'methods and path together',
      { method: ['PUT', 'DELETE'], path: '/v1' },
      ['PUT /v1/a', 'DELETE /v1'],
      ['GET /v1/a', 'PUT /v2'],
    ],
  ] as const)('%s', async (_name, match, hit, spared) => {
    const { http } = setup({ retries: 0, chaos: { faults: [fault(match)] } }, 'http');
    const send = (line: string) => {
      const [method, path] = line.split(' ') as [string, string];
      return http.request({ method, url: `${t.server.url}${path}`, data: method === 'GET' ? undefined : {} });
    };
    for (const line of hit) expect((await failure(send(line))).response?.status).toBe(503);
    for (const line of spared) expect((await send(line)).status).toBe(200);
    expect(t.server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(spared);
  });

  test('the origin, with or without its default port, and a baseURL', async () => {
    const other = await startServer((_req, res) => res.end('other'));
    try {
      const { http } = setup({ retries: 0, chaos: { faults: [fault({ origin: [t.server.url] })] } }, 'http');
      expect((await failure(http.get('/r', { baseURL: t.server.url }))).response?.status).toBe(503);
      expect((await http.get(`${other.url}/r`)).data).toBe('other');
      expect(t.server.requests).toHaveLength(0);
      expect(other.requests).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});
