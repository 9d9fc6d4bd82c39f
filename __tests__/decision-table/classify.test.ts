import { AxiosError, CanceledError } from 'axios';
import { classify, readFailure } from '../../lib/policy/classify';
import { resolvePluginOptions } from '../../lib/policy/options';

const options = resolvePluginOptions(undefined).call;

function statusError(status: number): AxiosError {
  return new AxiosError('failed', 'ERR_BAD_RESPONSE', undefined, undefined, {
    status,
    statusText: '',
    headers: {},
    config: {} as never,
    data: '',
  });
}
const network = (code: string) => new AxiosError('network', code);

/** `deduped`: the call carries a key its server dedupes (the caller's own, or a declared server's). */
const decide = (error: unknown, method: string, deduped = false) =>
  classify({ method, keyed: deduped, deduped }, readFailure(error, options));
/** A key the plugin generated, on a server not declared to dedupe. */
const generatedKey = (error: unknown, method: string) =>
  classify({ method, keyed: true, deduped: false }, readFailure(error, options));

describe('the decision table', () => {
  test.each([408, 429, 502, 503, 504])('retries a GET that got %i', (status) => {
    expect(decide(statusError(status), 'GET')).toEqual({ retry: true, reason: String(status) });
  });

  test.each([400, 401, 403, 404, 409, 422, 425, 500, 501])('does not retry a GET that got %i', (status) => {
    expect(decide(statusError(status), 'GET')).toMatchObject({ retry: false, stopReason: 'not-retryable' });
  });

  test('retries 409 only when the call carries a key', () => {
    expect(decide(statusError(409), 'POST', true)).toEqual({ retry: true, reason: '409' });
    expect(decide(statusError(409), 'GET', true)).toEqual({ retry: true, reason: '409' });
    expect(decide(statusError(409), 'POST', false)).toMatchObject({ retry: false, stopReason: 'not-retryable' });
  });

  test.each([
    'ECONNRESET',
    'ECONNREFUSED',
    'ETIMEDOUT',
    'ECONNABORTED',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EPIPE',
    'ENETUNREACH',
    'ERR_NETWORK',
  ])('retries a GET that failed with %s', (code) => {
    expect(decide(network(code), 'GET')).toEqual({ retry: true, reason: code });
  });

  test.each(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE'])(
    'retries idempotent %s on 503 without a key',
    (method) => {
      expect(decide(statusError(503), method)).toMatchObject({ retry: true });
    },
  );

  test.each(['POST', 'PATCH'])('%s without a key is not retried on 503, 504, ECONNRESET or a timeout', (method) => {
    for (const error of [
      statusError(503),
      statusError(504),
      network('ECONNRESET'),
      network('ECONNABORTED'),
      network('ETIMEDOUT'),
    ]) {
      expect(decide(error, method)).toMatchObject({ retry: false, stopReason: 'non-idempotent' });
    }
  });

  test.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'])(
    'POST without a key is retried on %s: it never reached the server',
    (code) => {
      expect(decide(network(code), 'POST')).toEqual({ retry: true, reason: code });
    },
  );

  test('POST with a key is retried on 503 and ECONNRESET', () => {
    expect(decide(statusError(503), 'POST', true)).toMatchObject({ retry: true });
    expect(decide(network('ECONNRESET'), 'POST', true)).toMatchObject({ retry: true });
  });

  test('a POST that got a 400 is not-retryable, not non-idempotent', () => {
    expect(decide(statusError(400), 'POST')).toMatchObject({ retry: false, stopReason: 'not-retryable' });
  });

  test('a cancelled request is never retried', () => {
    expect(decide(new CanceledError(), 'GET')).toMatchObject({ retry: false, stopReason: 'aborted' });
  });

  test('an error with a code the table does not list is not retried', () => {
    expect(decide(network('ERR_BAD_OPTION'), 'GET')).toMatchObject({ retry: false, stopReason: 'not-retryable' });
    expect(decide(network('CERT_HAS_EXPIRED'), 'GET')).toMatchObject({ retry: false, stopReason: 'not-retryable' });
  });

  test('a failure with no response and no code is an unknown transport failure: retried when safe to repeat', () => {
    expect(decide(new TypeError('bad'), 'GET')).toMatchObject({ retry: true, reason: 'no response' });
    expect(decide(new Error('Network Error'), 'PUT')).toMatchObject({ retry: true });
    expect(decide(new Error('Network Error'), 'POST', true)).toMatchObject({ retry: true });
    expect(decide(new Error('Network Error'), 'POST')).toMatchObject({ retry: false, stopReason: 'non-idempotent' });
    expect(decide(new Error('Network Error'), 'PATCH')).toMatchObject({ retry: false, stopReason: 'non-idempotent' });
  });

  test("finds the socket code under the fetch adapter's generic ERR_NETWORK", () => {
    const socket = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const fetchError = Object.assign(new TypeError('fetch failed'), { cause: socket });
    const axiosError = new AxiosError('Network Error', 'ERR_NETWORK');
    Object.defineProperty(axiosError, 'cause', { value: fetchError });
    expect(decide(axiosError, 'POST')).toEqual({ retry: true, reason: 'ECONNREFUSED' });
  });

  test('custom statusCodes and errorCodes change the table', () => {
    // An adapter's own code: not an errno name, so it is taken as written.
    const custom = resolvePluginOptions({ statusCodes: [500], errorCodes: ['MY_ADAPTER_DOWN'] }).call;
    const get = { method: 'GET', keyed: false, deduped: false };
    expect(classify(get, readFailure(statusError(500), custom))).toMatchObject({ retry: true });
    expect(classify(get, readFailure(statusError(503), custom))).toMatchObject({ retry: false });
    expect(classify(get, readFailure(network('MY_ADAPTER_DOWN'), custom))).toMatchObject({ retry: true });
  });
});

describe('writes whose key the server is not declared to dedupe (a generated key counts as none)', () => {
  test.each(['POST', 'PATCH'])(
    '%s is retried only where the request was provably not processed: refused, DNS, 408, 429',
    (method) => {
      for (const error of [network('ECONNREFUSED'), network('ENOTFOUND'), network('EAI_AGAIN')]) {
        expect(generatedKey(error, method)).toMatchObject({ retry: true });
        expect(decide(error, method)).toMatchObject({ retry: true });
      }
      for (const status of [408, 429]) {
        expect(generatedKey(statusError(status), method)).toEqual({ retry: true, reason: String(status) });
        expect(decide(statusError(status), method)).toEqual({ retry: true, reason: String(status) });
      }
    },
  );

  test.each(['POST', 'PATCH'])(
    '%s stops as non-idempotent after a timeout, a reset, 502, 503, 504, a cut-off body or a 409',
    (method) => {
      const cutOff = new AxiosError(
        'aborted',
        'ERR_BAD_RESPONSE',
        { validateStatus: () => true } as never,
        {},
        {
          status: 200,
          statusText: '',
          headers: {},
          config: {} as never,
          data: '',
        },
      );
      for (const error of [
        network('ECONNABORTED'),
        network('ETIMEDOUT'),
        network('ECONNRESET'),
        statusError(502),
        statusError(503),
        statusError(504),
        cutOff,
        statusError(409),
      ]) {
        expect(generatedKey(error, method)).toMatchObject({ retry: false, stopReason: 'non-idempotent' });
        expect(decide(error, method, true)).toMatchObject({ retry: true });
      }
    },
  );

  test('500 and other 4xx stay not-retryable in every column', () => {
    for (const status of [400, 422, 500]) {
      expect(generatedKey(statusError(status), 'POST')).toMatchObject({ stopReason: 'not-retryable' });
      expect(decide(statusError(status), 'POST', true)).toMatchObject({ stopReason: 'not-retryable' });
    }
  });
});

describe('readFailure (one failed attempt, read once: what the table, the write rule and the breaker read)', () => {
  test('its kind: retryable statuses and network failures, not 4xx or cancels (what the breaker counts)', () => {
    expect(readFailure(statusError(503), options).kind).toBe('status');
    expect(readFailure(network('ECONNRESET'), options).kind).toBe('network');
    expect(readFailure(statusError(404), options).kind).toBe('other');
    expect(readFailure(statusError(422), options).kind).toBe('other');
    expect(readFailure(new CanceledError(), options).kind).toBe('cancel');
  });

  test('whether the server never processed it: 408 and 429 refused, a connection refused or a name not found', () => {
    const read = (error: unknown) => readFailure(error, options);
    expect([408, 429].map((s) => read(statusError(s)).unprocessed)).toEqual([true, true]);
    expect([409, 502, 503, 504].map((s) => read(statusError(s)).unprocessed)).toEqual([false, false, false, false]);
    expect(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].map((c) => read(network(c)).unprocessed)).toEqual([
      true,
      true,
      true,
    ]);
    expect(['ECONNRESET', 'ETIMEDOUT'].map((c) => read(network(c)).unprocessed)).toEqual([false, false]);
    expect(read(new CanceledError()).unprocessed).toBe(false);
  });
});
