/**
 * What the app sees is axios's (contract release 6): a failed call's `message`, `code`, `name`,
 * class, `status` and `toJSON().message` are those plain axios gives for the same last attempt,
 * byte for byte, so `error.message === 'Network Error'` still fires. The plugin's story (attempts,
 * time, why it stopped) goes on the first line of `error.stack`, after axios's words, which is what
 * `console.error`, pino's error serialiser and error trackers print first.
 *
 * Each row runs the call through the plugin and the same last attempt through a plain axios
 * instance, against the same real node:http server on 127.0.0.1. The plugin's clock is injected
 * and moved by the server (250 ms per request), so the times in the stories are exact.
 */
import { Writable } from 'node:stream';
import axios, { AxiosError } from 'axios';
import type { AxiosInstance, AxiosRequestConfig } from 'axios';
import pino from 'pino';
import { CircuitOpenError, retryPlugin } from '../../lib';
import type { RetryPluginOptions } from '../../lib';
import { serverPerTest } from '../support/test-server';

const t = serverPerTest();
let clock = 0;
/** The call whose request reaching the server aborts it (the `canceled` row). */
let abortOnArrival: AbortController | undefined;

function client(options: RetryPluginOptions = {}): AxiosInstance {
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
    if (req.url === '/abort') return abortOnArrival?.abort();
    res.writeHead(503).end();
  };
});

const failure = (promise: Promise<unknown>): Promise<AxiosError> =>
  promise.then(
    () => {
      throw new Error('the call resolved');
    },
    (e: unknown) => e as AxiosError,
  );

/** A port nothing listens on: every connection is refused. */
async function deadUrl(): Promise<string> {
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}/`;
}

/** What an app's error handling reads of an error. */
function seen(error: AxiosError) {
  return {
    class: error.constructor,
    message: error.message,
    code: error.code,
    name: error.name,
    status: error.status,
    responseStatus: error.response?.status,
    json: pick(error.toJSON() as Record<string, unknown>),
  };
}

/** What `toJSON()` says of the failure itself (its config and stack differ: the plugin's fields, the story). */
const pick = ({ message, name, code, status }: Record<string, unknown>) => ({ message, name, code, status });

const firstLine = (error: Error): string | undefined => error.stack?.split('\n')[0];

interface Row {
  name: string;
  options?: RetryPluginOptions;
  /** The call, made through the plugin's instance or plain axios. */
  call(http: AxiosInstance, url: string, plain: boolean): Promise<unknown>;
  path?: string;
  /** The story after axios's words on the stack's first line. */
  story: string | RegExp;
}

const port = (): string => new URL(t.server.url).port;

const rows: Row[] = [
  {
    name: '4 attempts that all got a 503',
    options: { retries: 3 },
    call: (http, url) => http.get(url),
    story: '4 attempts over 1.0 s; stopped: retries-exhausted',
  },
  {
    name: 'a 404',
    path: '/missing',
    call: (http, url) => http.get(url),
    story: '1 attempt over 250 ms; stopped: not-retryable',
  },
  {
    name: 'a POST to 127.0.0.1 while localhost was declared',
    get options(): RetryPluginOptions {
      return { idempotencyKey: { serverDedupes: [`http://localhost:${port()}`] } };
    },
    path: '/payments',
    call: (http, url) => http.post(url, { amount: 1 }),
    get story(): string {
      return (
        `1 attempt over 250 ms; stopped: non-idempotent — a POST to http://127.0.0.1:${port()} may have been ` +
        `processed, and that origin is not in idempotencyKey.serverDedupes (which lists http://localhost:${port()})`
      );
    },
  },
  {
    name: 'a keyless PATCH',
    options: { idempotencyKey: false },
    path: '/orders/1',
    call: (http, url) => http.patch(url, {}),
    story:
      /^1 attempt over 250 ms; stopped: non-idempotent — a PATCH to http:\/\/127\.0\.0\.1:\d+ may have been processed, and it carries no Idempotency-Key$/,
  },
  {
    // The deadline clips the last attempt's timeout to the 500 ms it leaves: plain axios is given that timeout.
    name: 'a deadline of 500 ms under an axios timeout of 5 s',
    options: { deadlineMs: 500 },
    path: '/hold',
    call: (http, url, plain) => http.get(url, { timeout: plain ? 500 : 5000 }),
    story: /^1 attempt over \d+ ms; stopped: deadline of 500 ms$/,
  },
  {
    name: 'an onRetry that throws',
    options: {
      onRetry: () => {
        throw new TypeError('token refresh failed');
      },
    },
    call: (http, url) => http.get(url),
    story: '1 attempt over 250 ms; stopped: hook-failed: TypeError: token refresh failed',
  },
  {
    name: 'Network Error (fetch adapter, connection refused)',
    options: { retries: 2 },
    call: async (http, _url) => http.get(await deadUrl(), { adapter: 'fetch' }),
    story: '3 attempts over 0 ms; stopped: retries-exhausted',
  },
  {
    name: 'canceled (an AbortSignal fired while the request was at the server)',
    path: '/abort',
    call: (http, url) => {
      abortOnArrival = new AbortController();
      return http.get(url, { signal: abortOnArrival.signal });
    },
    story: '1 attempt over 250 ms; stopped: aborted',
  },
  {
    name: 'a caller’s own timeout of 80ms exceeded',
    options: { retries: 1 },
    path: '/hold',
    call: (http, url) => http.get(url, { timeout: 80 }),
    // The time is not exact here: a request that timed out at the client (plain axios's, or an attempt's)
    // may reach the server, and move the clock, earlier or later than its call on a loaded machine.
    story: /^2 attempts over \d+ ms; stopped: retries-exhausted$/,
  },
];

describe('a failed call is axios’s error, with the story on its stack', () => {
  test.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const url = `${t.server.url}${row.path ?? '/down'}`;
    const plain = await failure(row.call(axios.create(), url, true));
    const ours = await failure(row.call(client(row.options), url, false));

    expect(seen(ours)).toEqual(seen(plain));
    expect(ours.message).toBe(plain.message);
    expect((ours.toJSON() as { message?: string }).message).toBe(plain.message);

    const story = firstLine(ours)!.slice(`${ours.name}: ${ours.message} (`.length, -1);
    expect(firstLine(ours)).toBe(`${ours.name}: ${ours.message} (${story})`);
    if (typeof row.story === 'string') expect(story).toBe(row.story);
    else expect(story).toMatch(row.story);
    expect(ours.config?.retryState?.stopReason).toBe(/stopped: ([a-z-]+)/.exec(story)![1]);
  });

  test('the words are axios’s exact ones an app compares with', async () => {
    const network = await failure(client({ retries: 1 }).get(await deadUrl(), { adapter: 'fetch' }));
    const timeout = await failure(client({ retries: 0 }).get(`${t.server.url}/hold`, { timeout: 80 }));
    const missing = await failure(client().get(`${t.server.url}/missing`));
    expect([network.message, timeout.message, missing.message]).toEqual([
      'Network Error',
      'timeout of 80ms exceeded',
      'Request failed with status code 404',
    ]);
  });

  /** A hook that throws `error`. */
  const throwing = (error: Error) => (): never => {
    throw error;
  };
  const down = (options: RetryPluginOptions) => failure(client(options).get(`${t.server.url}/down`));

  test('a hook that throws is the cause of the call’s error; the stack says hook-failed with its words', async () => {
    const thrown = new TypeError('token refresh failed');
    const error = await down({ onRetry: throwing(thrown) });
    expect(error.cause).toBe(thrown);
    expect(error.config?.retryState?.hookError).toBe(thrown);
    expect(error.response?.status).toBe(503);
    expect(firstLine(error)).toBe(
      'AxiosError: Request failed with status code 503 (1 attempt over 250 ms; stopped: hook-failed: TypeError: token refresh failed)',
    );
  });

  test('a beforeAttempt that throws before a retry: the last 503 is the call’s error, caused by the hook’s', async () => {
    const thrown = new RangeError('clock skew');
    const hook = throwing(thrown);
    const error = await down({ beforeAttempt: (_config, { attempt }) => (attempt === 2 ? hook() : undefined) });
    expect(error.message).toBe('Request failed with status code 503');
    expect(error.cause).toBe(thrown);
    expect(firstLine(error)).toBe(
      'AxiosError: Request failed with status code 503 (1 attempt over 250 ms; stopped: hook-failed: RangeError: clock skew)',
    );
    expect(t.server.requests).toHaveLength(1);
  });

  test('a beforeAttempt that throws before anything was sent: the call’s error is caused by it', async () => {
    const thrown = new Error('no token');
    const error = await down({ beforeAttempt: throwing(thrown) });
    expect(error.cause).toBe(thrown);
    expect(error.config?.retryState?.stopReason).toBe('hook-failed');
    expect(firstLine(error)).toBe('Error: no token (nothing sent; stopped: hook-failed)');
    expect(t.server.requests).toHaveLength(0);
  });

  test('an open breaker: the CircuitOpenError keeps its own words, its stack says nothing was sent', async () => {
    const http = client({ retries: 0, breaker: { volumeThreshold: 5, errorThresholdPercentage: 50 } });
    for (let i = 0; i < 5; i++) await failure(http.get(`${t.server.url}/down`));
    const error = await failure(http.get(`${t.server.url}/down`));
    expect(error).toBeInstanceOf(CircuitOpenError);
    expect(error.message).toMatch(
      /^axios-resilience: circuit open for http:\/\/127\.0\.0\.1:\d+; the request was not sent$/,
    );
    expect(firstLine(error)).toBe(`CircuitOpenError: ${error.message} (nothing sent; stopped: circuit-open)`);
  });

  test('the story is told once: a config re-sent by hand tells its own, not the last one twice', async () => {
    const http = client({ retries: 0 });
    const first = await failure(http.get(`${t.server.url}/down`));
    const second = await failure(http.request(first.config as AxiosRequestConfig));
    const told = 'AxiosError: Request failed with status code 503 (1 attempt over 250 ms; stopped: retries-exhausted)';
    expect([firstLine(first), firstLine(second)]).toEqual([told, told]);
    expect(second.message).toBe('Request failed with status code 503');
  });

  test('a real pino logger’s error serialiser prints axios’s message and the story in the stack', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = pino({ base: null, timestamp: false }, sink);
    const error = await failure(client({ retries: 1 }).get(`${t.server.url}/down`));
    logger.error({ err: error }, 'payment call failed');
    await new Promise((resolve) => setImmediate(resolve));
    const logged = JSON.parse(lines.join('')) as { err: { type: string; message: string; stack: string } };
    expect(logged.err.type).toBe('AxiosError');
    expect(logged.err.message).toBe('Request failed with status code 503');
    expect(logged.err.stack.split('\n')[0]).toBe(
      'AxiosError: Request failed with status code 503 (2 attempts over 500 ms; stopped: retries-exhausted)',
    );
  });
});
