/**
 * The write rule is a guard, not a row: no predicate, hook or option re-sends a write (POST, PATCH)
 * whose server is not declared to dedupe it, and no write that got a 2xx is sent again. Only the
 * server's own word (`x-should-retry: true`) or the caller's `unsafeRetryWrites` may.
 *
 * One real node:http server counts what it received: the first request of each case gets the
 * case's answer, every later one a 200. A case that was retried therefore shows 2 requests, one
 * that was not shows 1. Every method × first answer × predicate × declaration is a case (600), and
 * the expected count is the contract's words, written as plainly as they read.
 */
import axios from 'axios';
import type { AxiosError } from 'axios';
import { retryPlugin } from '../../lib';
import type { RetryPluginOptions } from '../../lib';
import { createIdempotentResource, startFaultServer } from '../../lib/testing';
import { startServer } from '../support/test-server';
import type { TestServer } from '../support/test-server';

const METHODS = ['GET', 'PUT', 'DELETE', 'POST', 'PATCH'] as const;
/** The first answer: a 2xx, a status the table does not retry (500), three it does, and 503 with the server's word. */
const FIRSTS = ['201', '500', '503', '429', '408', '503+x-should-retry'] as const;
const PREDICATES = ['none', 'shouldRetry: () => true', 'shouldRetry: () => false', 'shouldRetryResponse once'] as const;
const DECLARATIONS = [
  'generated key, server not declared',
  'generated key, serverDedupes: true',
  'no key (idempotencyKey: false)',
  "the caller's own key",
  'unsafeRetryWrites: true',
] as const;

type Method = (typeof METHODS)[number];
type First = (typeof FIRSTS)[number];
type Predicate = (typeof PREDICATES)[number];
type Declaration = (typeof DECLARATIONS)[number];

/** The contract, in its own words: how many requests the server receives. */
function expectedRequests(method: Method, first: First, predicate: Predicate, declaration: Declaration): 1 | 2 {
  const write = method === 'POST' || method === 'PATCH';
  const serverSaysRetry = first === '503+x-should-retry';
  const unsafe = declaration === 'unsafeRetryWrites: true';
  if (first === '201') {
    // A resolved response is retried only through shouldRetryResponse, and a write's 2xx only on the
    // server's word or with unsafeRetryWrites (never because its key is deduped: that would only replay).
    const asked = predicate === 'shouldRetryResponse once';
    return asked && (!write || unsafe) ? 2 : 1;
  }
  const status = Number(first.slice(0, 3));
  // The table retries 408, 429 and 503 (and the server's x-should-retry: true); a predicate on
  // failures overrides it either way.
  const table = serverSaysRetry || [408, 429, 503].includes(status);
  const asked =
    predicate === 'shouldRetry: () => true' ? true : predicate === 'shouldRetry: () => false' ? false : table;
  if (!asked) return 1;
  if (!write) return 2;
  // A write is repeated only where that is safe: its key deduped (declared, or the caller's own),
  // the server never processed it (408, 429), the server said so, or the caller opted in.
  const deduped = declaration === 'generated key, serverDedupes: true' || declaration === "the caller's own key";
  return deduped || status === 408 || status === 429 || serverSaysRetry || unsafe ? 2 : 1;
}

function optionsFor(predicate: Predicate, declaration: Declaration): RetryPluginOptions {
  const options: RetryPluginOptions = { retries: 1, random: () => 0, budget: false, breaker: false, rateLimit: false };
  if (predicate === 'shouldRetry: () => true') options.shouldRetry = () => true;
  if (predicate === 'shouldRetry: () => false') options.shouldRetry = () => false;
  if (predicate === 'shouldRetryResponse once') options.shouldRetryResponse = (ctx) => ctx.attempt === 1;
  if (declaration === 'generated key, serverDedupes: true') options.idempotencyKey = { serverDedupes: true };
  if (declaration === 'no key (idempotencyKey: false)') options.idempotencyKey = false;
  if (declaration === 'unsafeRetryWrites: true') options.unsafeRetryWrites = true;
  return options;
}

let server: TestServer;
const firstOf = new Map<string, First>();
beforeAll(async () => {
  server = await startServer((req, res) => {
    const id = String(req.headers['x-case']);
    const first = firstOf.get(id);
    firstOf.delete(id);
    if (first === undefined) return res.writeHead(200).end('later');
    const status = Number(first.slice(0, 3));
    res.writeHead(status, first.endsWith('x-should-retry') ? { 'x-should-retry': 'true' } : {}).end('first');
  });
});
afterAll(() => server.close());

const cases = METHODS.flatMap((method) =>
  FIRSTS.flatMap((first) =>
    PREDICATES.flatMap((predicate) => DECLARATIONS.map((declaration) => ({ method, first, predicate, declaration }))),
  ),
);

test.each(PREDICATES.flatMap((predicate) => DECLARATIONS.map((declaration) => [predicate, declaration] as const)))(
  'every method and first answer, with %s and %s: the server receives what the rule allows',
  async (predicate, declaration) => {
    const plugin = retryPlugin(optionsFor(predicate, declaration));
    const http = axios.create({ baseURL: server.url, validateStatus: (s) => s < 400 });
    plugin.install(http);
    try {
      const mine = cases.filter((c) => c.predicate === predicate && c.declaration === declaration);
      const got: string[] = [];
      const want: string[] = [];
      for (const { method, first } of mine) {
        const id = `${method} ${first} ${predicate} ${declaration}`;
        firstOf.set(id, first);
        const headers: Record<string, string> = { 'x-case': id };
        if (declaration === "the caller's own key") headers['Idempotency-Key'] = `caller-${id.length}-${got.length}`;
        await http
          .request({ method, url: '/r', data: method === 'GET' ? undefined : { a: 1 }, headers })
          .catch(() => {});
        const received = server.requests.filter((r) => r.headers['x-case'] === id).length;
        got.push(`${method} ${first}: ${received}`);
        want.push(`${method} ${first}: ${expectedRequests(method, first, predicate, declaration)}`);
      }
      expect(got).toEqual(want);
    } finally {
      await plugin.close();
    }
  },
);

test('the issue’s script: shouldRetry: () => true and one POST /payments answered 201 sends one POST', async () => {
  const payments = createIdempotentResource();
  const fault = await startFaultServer({ routes: { 'POST /payments': { steps: ['201'], resource: payments } } });
  const plugin = retryPlugin({ shouldRetry: () => true, baseDelayMs: 1 });
  const api = axios.create({ baseURL: fault.url });
  plugin.install(api);
  try {
    expect((await api.post('/payments', { amount: 100 })).status).toBe(201);
    expect(fault.requestsTo('POST /payments')).toHaveLength(1);
    expect(payments.created).toBe(1);
  } finally {
    await plugin.close();
    await fault.close();
  }
});

test('with idempotencyKey: false, a payment answered 503 after it was created is created once, not six times', async () => {
  const payments = createIdempotentResource();
  const fault = await startFaultServer({
    routes: { 'POST /payments': { steps: [{ status: 503, commit: true }, '201'], resource: payments } },
  });
  const plugin = retryPlugin({ shouldRetry: () => true, idempotencyKey: false, baseDelayMs: 1 });
  const api = axios.create({ baseURL: fault.url });
  plugin.install(api);
  try {
    const error = await api.post('/payments', { amount: 100 }).catch((e: unknown) => e as AxiosError);
    expect((error as AxiosError).config?.retryState?.stopReason).toBe('non-idempotent');
    expect(fault.requestsTo('POST /payments')).toHaveLength(1);
    expect(payments.created).toBe(1);
  } finally {
    await plugin.close();
    await fault.close();
  }
});
