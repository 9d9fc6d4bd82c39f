/**
 * Every message the option validator can produce, one row each: the input and the exact message
 * (a user reads it, so it is the behaviour). Each names the field, what was given (with its type
 * when the type is the mistake) and what is allowed; an unknown name gets the nearest known one.
 * Per-request rows are checked twice: by the resolver and through a real axios call, which is
 * refused before anything reaches the server.
 */
import axios from 'axios';
import type { AxiosError } from 'axios';
import { retryPlugin, RetryBudget } from '../../lib';
import { resendCountHook } from '../../lib/otel';
import { resolvePluginOptions, resolveRequestOptions } from '../../lib/policy/options';
import { startServer } from '../support/test-server';
import type { TestServer } from '../support/test-server';

type Row = [input: unknown, message: string | RegExp];

/** What `run` threw; fails the test when it threw nothing or something other than a TypeError. */
async function typeError(run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as Error).message;
  }
  throw new Error('expected a TypeError, nothing was thrown');
}

function expectMessage(actual: string, expected: string | RegExp): void {
  if (typeof expected === 'string') expect(actual).toBe(expected);
  else expect(actual).toMatch(expected);
}

const PLUGIN_ROWS: Row[] = [
  ['fast', 'axios-resilience: options must be an object, got the string "fast"'],
  [{ retires: 3 }, 'axios-resilience: retires is not a known option; did you mean retries?'],
  // The peers' names (axios-retry, retry-axios, got, ky) are answered with ours.
  [{ retry: 3 }, 'axios-resilience: retry is the per-request field; for the number of retries use retries'],
  [
    { retryCondition: () => true },
    'axios-resilience: retryCondition is not an option here; use shouldRetry (writes stay guarded)',
  ],
  [
    { retryDelay: () => 100 },
    'axios-resilience: retryDelay is not an option here; use delay, or baseDelayMs for a number',
  ],
  [
    { shouldResetTimeout: true },
    "axios-resilience: shouldResetTimeout is not needed: each attempt gets axios's whole timeout; deadlineMs bounds the call",
  ],
  [
    { noResponseRetries: 2 },
    'axios-resilience: noResponseRetries is not an option here; use retries; network failures are in errorCodes',
  ],
  [
    { httpMethodsToRetry: ['GET', 'POST'] },
    'axios-resilience: httpMethodsToRetry is not an option here: POST and PATCH are retried with idempotencyKey.serverDedupes or unsafeRetryWrites',
  ],
  [
    { maxRetryAfter: 60_000 },
    "axios-resilience: maxRetryAfter is not an option here; use maxDelayMs with retryAfter: 'fail'",
  ],
  [{ statuscodes: [503] }, 'axios-resilience: statuscodes is not a known option; did you mean statusCodes?'],
  [
    { colour: 'red' },
    /^axios-resilience: colour is not a known option; known: retries, baseDelayMs, maxDelayMs, .*, rateLimit, rateLimitHeaders, onRateLimit, now$/,
  ],
  [{ retries: '3' }, 'axios-resilience: retries must be a whole number >= 0, got the string "3"'],
  [{ retries: 1.5 }, 'axios-resilience: retries must be a whole number >= 0, got 1.5'],
  [{ retries: -1 }, 'axios-resilience: retries must be a whole number >= 0, got -1'],
  [{ baseDelayMs: '10' }, 'axios-resilience: baseDelayMs must be a finite number >= 0, got the string "10"'],
  [{ baseDelayMs: -5 }, 'axios-resilience: baseDelayMs must be a finite number >= 0, got -5'],
  [{ maxDelayMs: Number.NaN }, 'axios-resilience: maxDelayMs must be a finite number >= 0, got NaN'],
  [{ maxDelayMs: 2 ** 31 }, 'axios-resilience: maxDelayMs must be at most 2147483647 (2^31 - 1), got 2147483648'],
  [{ jitter: 'fancy' }, 'axios-resilience: jitter must be one of "full", "equal", "decorrelated", "none", got "fancy"'],
  [
    { jitter: true },
    'axios-resilience: jitter must be one of "full", "equal", "decorrelated", "none", got the boolean true',
  ],
  [{ retryAfter: 'wait' }, 'axios-resilience: retryAfter must be "clamp" or "fail", got "wait"'],
  [
    { statusCodes: 503 },
    'axios-resilience: statusCodes must be an array of HTTP error statuses (400-599) such as [429, 503], got the number 503',
  ],
  [
    { statusCodes: [503, '429'] },
    'axios-resilience: statusCodes[1] must be an HTTP error status (400-599), got the string "429"',
  ],
  [{ statusCodes: [700] }, 'axios-resilience: statusCodes[0] must be an HTTP error status (400-599), got 700'],
  [
    { statusCodes: [200] },
    'axios-resilience: statusCodes[0] must be an HTTP error status (400-599), got 200 (a 1xx, 2xx or 3xx answer is not a failure, so it is never retried)',
  ],
  [
    { statusCodes: [503, 302] },
    'axios-resilience: statusCodes[1] must be an HTTP error status (400-599), got 302 (a 1xx, 2xx or 3xx answer is not a failure, so it is never retried)',
  ],
  [
    { errorCodes: 'ECONNRESET' },
    'axios-resilience: errorCodes must be an array of error codes such as ["ECONNRESET"], got the string "ECONNRESET"',
  ],
  [
    { errorCodes: ['ECONNRESET', 503] },
    'axios-resilience: errorCodes[1] must be an error code string such as "ECONNRESET", got the number 503 (statuses go in statusCodes)',
  ],
  [
    { errorCodes: [''] },
    'axios-resilience: errorCodes[0] must be an error code string such as "ECONNRESET", got the string ""',
  ],
  [
    { errorCodes: ['ECONNRESET,ETIMEDOUT'] },
    'axios-resilience: errorCodes[0] must be an error code string such as "ECONNRESET", got the string "ECONNRESET,ETIMEDOUT"',
  ],
  [
    { errorCodes: ['503'] },
    'axios-resilience: errorCodes[0] must be an error code string such as "ECONNRESET", got the string "503" (statuses go in statusCodes)',
  ],
  [
    { errorCodes: ['ECONNRESET', 'ECONNREFUSD'] },
    'axios-resilience: errorCodes[1] is not a known error code, got "ECONNREFUSD"; did you mean ECONNREFUSED?',
  ],
  [
    { errorCodes: ['etimeout'] },
    'axios-resilience: errorCodes[0] is not a known error code, got "etimeout"; did you mean ETIMEDOUT?',
  ],
  // Outside the errno names, only a near miss of a known code is refused.
  [
    { errorCodes: ['ERR_NETWROK'] },
    'axios-resilience: errorCodes[0] is not a known error code, got "ERR_NETWROK"; did you mean ERR_NETWORK?',
  ],
  [
    { errorCodes: ['EWHATEVER'] },
    'axios-resilience: errorCodes[0] is not a known error code, got "EWHATEVER"; known E… codes: ECONNRESET, ECONNREFUSED, ETIMEDOUT, ECONNABORTED, ENOTFOUND, EAI_AGAIN, EPIPE, ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN, ESOCKETTIMEDOUT, ENETRESET, ENOTCONN, EADDRINUSE, EADDRNOTAVAIL, EPROTO, EAI_FAIL, EMFILE, ENFILE, ENOBUFS',
  ],
  [{ deadlineMs: 0 }, 'axios-resilience: deadlineMs must be a finite number > 0, got 0'],
  [{ deadlineMs: '5s' }, 'axios-resilience: deadlineMs must be a finite number > 0, got the string "5s"'],
  [{ onRetry: 'log' }, 'axios-resilience: onRetry must be a function, got the string "log"'],
  [{ onGiveUp: {} }, 'axios-resilience: onGiveUp must be a function, got an object'],
  [{ shouldRetry: true }, 'axios-resilience: shouldRetry must be a function, got the boolean true'],
  [{ shouldRetryResponse: 'yes' }, 'axios-resilience: shouldRetryResponse must be a function, got the string "yes"'],
  [{ delay: 500 }, 'axios-resilience: delay must be a function, got the number 500'],
  [{ unsafeRetryWrites: 'yes' }, 'axios-resilience: unsafeRetryWrites must be true or false, got the string "yes"'],
  [{ beforeAttempt: [] }, 'axios-resilience: beforeAttempt must be a function, got an array'],
  [{ onHedge: 1 }, 'axios-resilience: onHedge must be a function, got the number 1'],
  [{ random: 4 }, 'axios-resilience: random must be a function, got the number 4'],
  [{ now: 'Date.now' }, 'axios-resilience: now must be a function, got the string "Date.now"'],
  [{ onCircuitStateChange: null }, 'axios-resilience: onCircuitStateChange must be a function, got null'],
  [{ onRateLimit: 'warn' }, 'axios-resilience: onRateLimit must be a function, got the string "warn"'],
  [
    { attemptHeader: 'Bad Header' },
    'axios-resilience: attemptHeader must be false, true or a header name such as "X-Retry-Attempt", got the string "Bad Header"',
  ],
  [
    { attemptHeader: 1 },
    'axios-resilience: attemptHeader must be false, true or a header name such as "X-Retry-Attempt", got the number 1',
  ],
  [{ hedge: 200 }, 'axios-resilience: hedge must be false or { delayMs, maxHedges? }, got the number 200'],
  [{ hedge: { delay: 200 } }, 'axios-resilience: hedge.delay is not a known option; did you mean delayMs?'],
  [
    { hedge: { delayMs: 'p75' } },
    'axios-resilience: hedge.delayMs must be ms (0 to 2147483647) or "p50", "p90", "p95", "p99", got "p75"',
  ],
  [
    { hedge: { delayMs: 100, maxHedges: 11 } },
    'axios-resilience: hedge.maxHedges must be a whole number from 1 to 10, got 11',
  ],
  [
    { hedge: { delayMs: 100, maxHedges: '2' } },
    'axios-resilience: hedge.maxHedges must be a whole number from 1 to 10, got the string "2"',
  ],
  [
    { hedge: { delayMs: 'p95', minDelayMs: -1 } },
    'axios-resilience: hedge.minDelayMs must be a finite number >= 0, got -1',
  ],
  [{ replay: 1024 }, 'axios-resilience: replay must be an object such as { maxBytes: 8388608 }, got the number 1024'],
  [{ replay: { maxByte: 1024 } }, 'axios-resilience: replay.maxByte is not a known option; did you mean maxBytes?'],
  [{ replay: { maxBytes: 0 } }, 'axios-resilience: replay.maxBytes must be a positive whole number of bytes, got 0'],
  [
    { body: () => 'x' },
    "axios-resilience: body can be set only per request, in config.retry (it makes one call's body)",
  ],
  [
    { idempotencyKey: 'order-42' },
    'axios-resilience: idempotencyKey can be a string only per request (it would pin one key for every call; use retry: { idempotencyKey } on the request), got "order-42"',
  ],
  [
    { idempotencyKey: true },
    'axios-resilience: idempotencyKey must be false or an options object, got the boolean true',
  ],
  [
    { idempotencyKey: { methodz: ['POST'] } },
    'axios-resilience: idempotencyKey.methodz is not a known option; did you mean methods?',
  ],
  [
    { idempotencyKey: { header: 'Bad Header' } },
    'axios-resilience: idempotencyKey.header must be a header name such as "Idempotency-Key", got the string "Bad Header"',
  ],
  [
    { idempotencyKey: { methods: 'POST' } },
    'axios-resilience: idempotencyKey.methods must be an array of method names such as ["POST"], got the string "POST"',
  ],
  [
    { idempotencyKey: { methods: ['POST', 7] } },
    'axios-resilience: idempotencyKey.methods[1] must be a method name such as "POST", got the number 7',
  ],
  [
    { idempotencyKey: { generate: 'uuid' } },
    'axios-resilience: idempotencyKey.generate must be a function, got the string "uuid"',
  ],
  [
    { idempotencyKey: { serverDedupes: 'yes' } },
    'axios-resilience: idempotencyKey.serverDedupes must be a boolean, an array of origins or a function (origin) => boolean, got the string "yes"',
  ],
  [
    { idempotencyKey: { serverDedupes: ['api.example.com'] } },
    'axios-resilience: idempotencyKey.serverDedupes must list absolute URLs such as "https://api.example.com", got "api.example.com"',
  ],
  [
    { budget: 'lots' },
    'axios-resilience: budget must be false, a RetryBudget or an options object, got the string "lots"',
  ],
  [{ budget: { ration: 0.2 } }, 'axios-resilience: budget.ration is not a known option; did you mean ratio?'],
  [{ budget: { ratio: -0.1 } }, 'axios-resilience: budget.ratio must be a share from 0 to 1 (0.1 is 10 %), got -0.1'],
  [
    { budget: { ratio: '10%' } },
    'axios-resilience: budget.ratio must be a share from 0 to 1 (0.1 is 10 %), got the string "10%"',
  ],
  // A percentage written where a share goes: ten retries per call, no budget at all.
  [{ budget: { ratio: 10 } }, 'axios-resilience: budget.ratio must be a share from 0 to 1 (0.1 is 10 %), got 10'],
  [{ budget: { windowMs: 0 } }, 'axios-resilience: budget.windowMs must be a finite number > 0, got 0'],
  [{ budget: { maxOrigins: 0.5 } }, 'axios-resilience: budget.maxOrigins must be a whole number >= 1, got 0.5'],
  [{ breaker: true }, 'axios-resilience: breaker must be false or an options object, got the boolean true'],
  [
    { breaker: { timeout: 3000 } },
    "axios-resilience: breaker.timeout cannot be set here; use axios's own `timeout` (per attempt) and `deadlineMs` (per call)",
  ],
  [{ breaker: { name: 'payments' } }, 'axios-resilience: breaker.name cannot be set here; use `key`'],
  [
    { breaker: { volumeTreshold: 5 } },
    'axios-resilience: breaker.volumeTreshold is not a known breaker option; did you mean volumeThreshold?',
  ],
  [
    { breaker: { resetTimeout: '2s' } },
    'axios-resilience: breaker.resetTimeout must be a finite number >= 0, got the string "2s"',
  ],
  [
    { breaker: { maxResetTimeout: 2 ** 31 } },
    'axios-resilience: breaker.maxResetTimeout must be at most 2147483647 (2^31 - 1), got 2147483648',
  ],
  [
    { breaker: { resetTimeout: 5000, maxResetTimeout: 4000 } },
    'axios-resilience: breaker.resetTimeout (5000) must not be above maxResetTimeout (4000)',
  ],
  [{ breaker: { maxOrigins: 0 } }, 'axios-resilience: breaker.maxOrigins must be a whole number >= 1, got 0'],
  // A breaker opens when the failure rate is above the threshold: at 100 or more, never.
  [
    { breaker: { errorThresholdPercentage: 150 } },
    'axios-resilience: breaker.errorThresholdPercentage must be from 0 to below 100 (the breaker opens above it), got 150',
  ],
  [
    { breaker: { errorThresholdPercentage: 100 } },
    'axios-resilience: breaker.errorThresholdPercentage must be from 0 to below 100 (the breaker opens above it), got 100',
  ],
  [
    { breaker: { errorThresholdPercentage: -1 } },
    'axios-resilience: breaker.errorThresholdPercentage must be a finite number >= 0, got -1',
  ],
  [{ breaker: { rollingCountBuckets: 0 } }, 'axios-resilience: breaker.rollingCountBuckets must be at least 1, got 0'],
  [{ breaker: { key: 'origin' } }, 'axios-resilience: breaker.key must be a function, got the string "origin"'],
  [
    { breaker: { shared: {} } },
    'axios-resilience: breaker.shared must be a BreakerSync (e.g. redisBreakerSync(client)), got an object',
  ],
  [{ rateLimit: 10 }, 'axios-resilience: rateLimit must be false or an options object, got the number 10'],
  [{ rateLimit: { maxQueu: 10 } }, 'axios-resilience: rateLimit.maxQueu is not a known option; did you mean maxQueue?'],
  [{ rateLimit: { maxQueue: 0 } }, 'axios-resilience: rateLimit.maxQueue must be a whole number >= 1, got 0'],
  [
    { rateLimit: { maxOrigins: '100' } },
    'axios-resilience: rateLimit.maxOrigins must be a whole number >= 1, got the string "100"',
  ],
  [{ rateLimit: { key: 'token' } }, 'axios-resilience: rateLimit.key must be a function, got the string "token"'],
  [
    { rateLimitHeaders: true },
    'axios-resilience: rateLimitHeaders must be false or rateLimitHeaders() (axios-resilience/rate-limit-headers), got the boolean true',
  ],
  [
    { rateLimitHeaders: { dialect: 'all' } },
    'axios-resilience: rateLimitHeaders.dialect is not a known option; did you mean dialects?',
  ],
  [{ rateLimitHeaders: { dialects: 'ietf' } }, 'axios-resilience: rateLimitHeaders.dialects must be "all", got "ietf"'],
  [
    { rateLimit: { shared: 'redis' } },
    'axios-resilience: rateLimit.shared must be a RateLimitStore (e.g. redisRateLimitStore(client)), got the string "redis"',
  ],
];

const REQUEST_ROWS: Row[] = [
  ['yes', 'axios-resilience: config.retry must be false or an options object, got the string "yes"'],
  [
    true,
    'axios-resilience: config.retry cannot be true: omit it, or give an options object; false turns the plugin off for the call',
  ],
  [
    3,
    'axios-resilience: config.retry must be false or an options object, got the number 3 (for 3 retries: { retries: 3 })',
  ],
  [
    { retry: 3 },
    'axios-resilience: config.retry.retry is the per-request field; for the number of retries use retries',
  ],
  [
    { retryCondition: () => true },
    'axios-resilience: config.retry.retryCondition is not an option here; use shouldRetry (writes stay guarded)',
  ],
  [
    { unsafeRetryWrites: 1 },
    'axios-resilience: config.retry.unsafeRetryWrites must be true or false, got the number 1',
  ],
  [
    { errorCodes: ['econnrefusd'] },
    'axios-resilience: config.retry.errorCodes[0] is not a known error code, got "econnrefusd"; did you mean ECONNREFUSED?',
  ],
  [
    { budget: false },
    'axios-resilience: config.retry.budget can be set only in retryPlugin({ budget }), not per request',
  ],
  [
    { onCircuitStateChange: () => {} },
    'axios-resilience: config.retry.onCircuitStateChange can be set only in retryPlugin({ onCircuitStateChange }), not per request',
  ],
  [
    { rateLimitHeaders: false },
    'axios-resilience: config.retry.rateLimitHeaders can be set only in retryPlugin({ rateLimitHeaders }), not per request',
  ],
  [{ retires: 1 }, 'axios-resilience: config.retry.retires is not a known option; did you mean retries?'],
  [{ retries: '3' }, 'axios-resilience: config.retry.retries must be a whole number >= 0, got the string "3"'],
  [
    { statusCodes: [204] },
    'axios-resilience: config.retry.statusCodes[0] must be an HTTP error status (400-599), got 204 (a 1xx, 2xx or 3xx answer is not a failure, so it is never retried)',
  ],
  [
    { idempotencyKey: 'bad\r\nkey' },
    'axios-resilience: config.retry.idempotencyKey must be 1-255 printable ASCII characters (no CR, LF or non-ASCII), got "bad\\r\\nkey"',
  ],
  [
    { idempotencyKey: 'k'.repeat(256) },
    'axios-resilience: config.retry.idempotencyKey must be 1-255 printable ASCII characters (no CR, LF or non-ASCII), got 256 characters',
  ],
  [
    { idempotencyKey: 42 },
    'axios-resilience: config.retry.idempotencyKey must be false, a key string or an options object, got the number 42',
  ],
  [{ body: 'payload' }, 'axios-resilience: config.retry.body must be a function, got the string "payload"'],
  [
    { hedge: { delayMs: -1 } },
    'axios-resilience: config.retry.hedge.delayMs must be ms (0 to 2147483647) or "p50", "p90", "p95", "p99", got -1',
  ],
];

describe('retryPlugin(options): one message per mistake', () => {
  test.each(PLUGIN_ROWS)('%p', async (input, message) => {
    expectMessage(await typeError(() => retryPlugin(input as never)), message);
  });

  test('every row is a different message', () => {
    const messages = [...PLUGIN_ROWS, ...REQUEST_ROWS].map(([, message]) => String(message));
    expect(new Set(messages).size).toBe(messages.length);
  });
});

/**
 * The peers' retry option names, each answered with ours (not "did you mean …?" for a name that
 * merely looks alike, nor the list of every option), in retryPlugin() and per request alike.
 */
const PEER_NAMES = {
  'axios-retry': ['retryCondition', 'retryDelay', 'shouldResetTimeout', 'onMaxRetryTimesExceeded', 'validateResponse'],
  'retry-axios (raxConfig)': [
    'retry',
    'noResponseRetries',
    'retryDelay',
    'httpMethodsToRetry',
    'statusCodesToRetry',
    'onRetryAttempt',
    'backoffType',
    'checkRetryAfter',
    'maxRetryAfter',
    'maxRetryDelay',
  ],
  'got and ky (retry: {…})': ['limit', 'methods', 'calculateDelay', 'backoffLimit', 'maxRetryAfter'],
};
/** Names the peers share with us: ours, so accepted. */
const SHARED_NAMES = {
  retries: 2,
  shouldRetry: () => undefined,
  statusCodes: [503],
  errorCodes: ['ETIMEDOUT'],
  jitter: 'full',
  delay: () => 5,
};

describe("the peers' option names", () => {
  const base = resolvePluginOptions({}).call;
  describe.each(Object.entries(PEER_NAMES))('%s', (_peer, names) => {
    test.each(names)('%s names our equivalent', async (name) => {
      const answer =
        /^axios-resilience: (config\.retry\.)?(\w+) (is the per-request field|is not an option here|is not needed)/;
      for (const [message, where] of [
        [await typeError(() => retryPlugin({ [name]: 1 } as never)), ''],
        [await typeError(() => resolveRequestOptions({ [name]: 1 }, base)), 'config.retry.'],
      ] as const) {
        expect(message).toMatch(answer);
        expect(message.startsWith(`axios-resilience: ${where}${name} `)).toBe(true);
        expect(message).not.toMatch(/did you mean|known:/);
      }
    });
  });

  test('the names they share with us are ours', () => {
    expect(resolvePluginOptions(SHARED_NAMES as never).call).toMatchObject({ retries: 2, jitter: 'full' });
    expect(resolveRequestOptions(SHARED_NAMES, base)).toMatchObject({ retries: 2, jitter: 'full' });
  });
});

describe('config.retry: the same resolver, named config.retry.<field>', () => {
  const base = resolvePluginOptions({}).call;
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((_request, response) => response.end('ok'));
  });
  afterAll(() => server.close());

  test.each(REQUEST_ROWS)('%p', async (input, message) => {
    expectMessage(await typeError(() => resolveRequestOptions(input, base)), message);

    const plugin = retryPlugin();
    const http = axios.create();
    plugin.install(http);
    try {
      const sent = server.requests.length;
      expectMessage(await typeError(() => http.get(server.url, { retry: input as never })), message);
      expect(server.requests.length).toBe(sent);
    } finally {
      await plugin.close();
    }
  });
});

describe('what a call or an install checks', () => {
  let server: TestServer;
  const plugins: Array<ReturnType<typeof retryPlugin>> = [];
  beforeAll(async () => {
    // A 503 on /busy, so a call there retries (and asks its body factory for a new body).
    server = await startServer((request, response) => {
      response.statusCode = request.url === '/busy' ? 503 : 200;
      response.end();
    });
  });
  afterAll(async () => {
    await Promise.all(plugins.map((p) => p.close()));
    await server.close();
  });
  const installed = (options: Parameters<typeof retryPlugin>[0]) => {
    const plugin = retryPlugin(options);
    plugins.push(plugin);
    const http = axios.create();
    plugin.install(http);
    return http;
  };

  const CALL_ROWS: Array<[name: string, run: () => unknown, message: string]> = [
    [
      'idempotencyKey.generate() returns an empty key',
      () => installed({ idempotencyKey: { generate: () => '' } }).post(server.url, {}),
      'axios-resilience: idempotencyKey.generate() must be 1-255 printable ASCII characters (no CR, LF or non-ASCII), got ""',
    ],
    [
      'breaker.key() returns nothing',
      () => installed({ breaker: { key: () => undefined as never } }).get(server.url),
      'axios-resilience: breaker.key() must return a non-empty string, got undefined',
    ],
    [
      'rateLimit.key() returns a number',
      () => installed({ rateLimit: { key: () => 42 as never } }).get(server.url),
      'axios-resilience: rateLimit.key() must return a non-empty string, got the number 42',
    ],
    [
      'config.retry.body() returns a number',
      // The call fails as a hook does ('hook-failed'); the TypeError is its retryState.hookError.
      async () => {
        const http = installed({ retries: 1, baseDelayMs: 0, idempotencyKey: { serverDedupes: true } });
        const retry = { body: () => 42 as never };
        const error = (await http.post(`${server.url}/busy`, 'x', { retry }).catch((e: unknown) => e)) as AxiosError;
        throw error.config?.retryState?.hookError ?? error;
      },
      'axios-resilience: config.retry.body() must return a request body (a string, Buffer, ArrayBuffer, typed array, Blob, FormData, URLSearchParams or stream), got the number 42',
    ],
    [
      'install() on something that is not axios',
      () => retryPlugin().install({} as never),
      'axios-resilience: install() needs axios or an axios.create() instance, got an object',
    ],
    [
      'install() after close()',
      async () => {
        const plugin = retryPlugin();
        await plugin.close();
        plugin.install(axios.create());
      },
      'axios-resilience: install() was called on a plugin after its close(); a closed plugin retries nothing, so make a new one with retryPlugin()',
    ],
    [
      'install() of a second plugin on one instance',
      () => {
        const http = axios.create();
        const first = retryPlugin();
        plugins.push(first);
        first.install(http);
        retryPlugin().install(http);
      },
      'axios-resilience: this axios instance already has a different retry plugin installed; eject or close it first (two would retry each other’s retries)',
    ],
    [
      'new RetryBudget() with a string',
      () => new RetryBudget('lots' as never),
      'axios-resilience: RetryBudget options must be an object, got the string "lots"',
    ],
    [
      'new RetryBudget() with a string ratio',
      () => new RetryBudget({ ratio: '10%' as never }),
      'axios-resilience: budget.ratio must be a share from 0 to 1 (0.1 is 10 %), got the string "10%"',
    ],
    [
      'new RetryBudget() with a clock that is not a function',
      () => new RetryBudget({ now: 5 as never }),
      'axios-resilience: budget.now must be a function, got the number 5',
    ],
    [
      'resendCountHook() with a header that is not a name',
      () => resendCountHook({ header: 'X Retry' }),
      'resendCountHook: header must be a header name such as "X-Retry-Attempt", got the string "X Retry"',
    ],
    [
      'resendCountHook() with keepHeader not a boolean',
      () => resendCountHook({ keepHeader: 'yes' as never }),
      'resendCountHook: keepHeader must be a boolean, got the string "yes"',
    ],
  ];

  test.each(CALL_ROWS)('%s', async (_name, run, message) => {
    const sent = server.requests.length;
    expect(await typeError(run)).toBe(message);
    // The body factory is asked for a retry's body, after a first attempt was sent.
    expect(server.requests.length).toBe(/body\(\)/.test(message) ? sent + 1 : sent);
  });
});
