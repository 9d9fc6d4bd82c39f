import { resolvePluginOptions, resolveRequestOptions } from '../../lib/policy/options';
import { retryPlugin, RetryBudget } from '../../lib';

describe('plugin options', () => {
  test('defaults match the contract', () => {
    const { call, budget, breaker } = resolvePluginOptions(undefined);
    expect(call.retries).toBe(5);
    expect(call.baseDelayMs).toBe(500);
    expect(call.maxDelayMs).toBe(30000);
    expect(call.jitter).toBe('full');
    expect([...call.statusCodes]).toEqual([408, 429, 502, 503, 504, 529]);
    expect(call.errorCodes.has('ECONNRESET')).toBe(true);
    expect(call.errorCodes.has('ERR_NETWORK')).toBe(true);
    expect(call.idempotencyKey && call.idempotencyKey.header).toBe('Idempotency-Key');
    expect(call.idempotencyKey && [...call.idempotencyKey.methods]).toEqual(['POST', 'PATCH']);
    expect(call.retryAfter).toBe('clamp');
    expect(call.deadlineMs).toBeUndefined();
    expect(budget).toEqual({ perOrigin: { ratio: 0.1, minPerSecond: 10, windowMs: 10000, maxOrigins: 1000 } });
    expect(breaker).toMatchObject({
      errorThresholdPercentage: 50,
      volumeThreshold: 10,
      resetTimeout: 2000,
      maxResetTimeout: 60000,
      rollingCountTimeout: 10000,
    });
    expect(breaker && breaker.volumeThreshold).toBeGreaterThanOrEqual(5);
  });

  test.each([
    [{ retries: -1 }, /retries/],
    [{ retries: 1.5 }, /retries/],
    [{ retries: Infinity }, /retries/],
    [{ baseDelayMs: -5 }, /baseDelayMs/],
    [{ maxDelayMs: Number.NaN }, /maxDelayMs/],
    [{ maxDelayMs: 2 ** 31 }, /maxDelayMs must be at most 2147483647/],
    [{ jitter: 'fancy' }, /jitter must be one of "full", "equal", "decorrelated", "none", got "fancy"/],
    [{ statusCodes: [503, 'x'] }, /statusCodes/],
    [{ errorCodes: 'ECONNRESET' }, /errorCodes/],
    [{ retryAfter: 'wait' }, /retryAfter/],
    [{ deadlineMs: 0 }, /deadlineMs/],
    [{ onRetry: 'log' }, /onRetry must be a function/],
    [{ random: 4 }, /random must be a function/],
    [{ idempotencyKey: 'order-1' }, /idempotencyKey can be a string only per request/],
    [{ idempotencyKey: { header: 'Bad Header' } }, /idempotencyKey.header/],
    [{ idempotencyKey: { methodz: ['POST'] } }, /idempotencyKey.methodz is not a known option/],
    [{ budget: { ratio: -0.1 } }, /budget.ratio/],
    [{ budget: { windowMs: 0 } }, /budget.windowMs/],
    [{ budget: 'lots' }, /budget must be false, a RetryBudget or an options object/],
    [{ breaker: { resetTimeout: -1 } }, /breaker.resetTimeout/],
    [{ retriez: 3 }, /retriez is not a known option/],
  ])('retryPlugin(%p) throws a TypeError naming the option', (options, message) => {
    expect(() => retryPlugin(options as never)).toThrow(TypeError);
    expect(() => retryPlugin(options as never)).toThrow(message);
  });

  test('error codes are kept in upper case, as Node writes them, whatever case they were given in', () => {
    const { errorCodes } = resolvePluginOptions({ errorCodes: ['econnreset', 'Etimedout', 'eai_fail'] }).call;
    expect([...errorCodes]).toEqual(['ECONNRESET', 'ETIMEDOUT', 'EAI_FAIL']);
  });

  test("codes outside the errno names are taken as written: Node's, axios's, undici's, OpenSSL's, an adapter's own", () => {
    const codes = ['ERR_HTTP2_STREAM_ERROR', 'ERR_BAD_RESPONSE', 'UND_ERR_HEADERS_TIMEOUT', 'CERT_HAS_EXPIRED'];
    const { errorCodes } = resolvePluginOptions({ errorCodes: [...codes, 'my_adapter_down'] }).call;
    expect([...errorCodes]).toEqual([...codes, 'MY_ADAPTER_DOWN']);
  });

  test('the rarer errno codes a socket or a DNS lookup gives are known', () => {
    const codes = [
      'ENETRESET',
      'ENOTCONN',
      'EADDRINUSE',
      'EADDRNOTAVAIL',
      'EPROTO',
      'EAI_FAIL',
      'EMFILE',
      'ENFILE',
      'ENOBUFS',
    ];
    expect([...resolvePluginOptions({ errorCodes: codes }).call.errorCodes]).toEqual(codes);
  });

  test('a breaker threshold from 0 to below 100 and a budget share from 0 to 1 are accepted', () => {
    for (const errorThresholdPercentage of [0, 99.5]) {
      expect(resolvePluginOptions({ breaker: { errorThresholdPercentage } }).breaker).toMatchObject({
        errorThresholdPercentage,
      });
    }
    for (const ratio of [0, 1]) {
      expect(resolvePluginOptions({ budget: { ratio } }).budget).toMatchObject({ perOrigin: { ratio } });
    }
    expect(() => new RetryBudget({ ratio: 1.5 })).toThrow('budget.ratio must be a share from 0 to 1');
  });

  test('shouldRetryResponse, delay and unsafeRetryWrites: off by default, resolved when given', () => {
    expect(resolvePluginOptions({}).call).toMatchObject({
      shouldRetryResponse: undefined,
      delay: undefined,
      unsafeRetryWrites: false,
    });
    const shouldRetryResponse = () => false;
    const delay = () => 10;
    const call = resolvePluginOptions({ shouldRetryResponse, delay, unsafeRetryWrites: true }).call;
    expect(call).toMatchObject({ shouldRetryResponse, delay, unsafeRetryWrites: true });
  });

  test('a call that asks shouldRetryResponse is not plain; delay and unsafeRetryWrites leave it plain', () => {
    expect(resolvePluginOptions({}).call.plain).toBe(true);
    expect(resolvePluginOptions({ shouldRetryResponse: () => undefined }).call.plain).toBe(false);
    expect(resolvePluginOptions({ delay: () => 10, unsafeRetryWrites: true }).call.plain).toBe(true);
  });

  test('accepts a RetryBudget instance to share', () => {
    const shared = new RetryBudget({ ratio: 0.2 });
    expect(resolvePluginOptions({ budget: shared }).budget).toEqual({ shared });
  });
});

describe('per-request options', () => {
  const plugin = resolvePluginOptions({ retries: 3, baseDelayMs: 10 }).call;

  test('undefined reuses the plugin options without copying them', () => {
    expect(resolveRequestOptions(undefined, plugin)).toBe(plugin);
  });

  test('false leaves the call alone', () => {
    expect(resolveRequestOptions(false, plugin)).toBe(false);
  });

  test('true is refused (the type forbids it): omit the field, or give an object', () => {
    expect(() => resolveRequestOptions(true, plugin)).toThrow(TypeError);
    expect(() => resolveRequestOptions(true, plugin)).toThrow(
      /^axios-resilience: config\.retry cannot be true: omit it/,
    );
  });

  test('null, as undefined, keeps the plugin options', () => {
    expect(resolveRequestOptions(null, plugin)).toBe(plugin);
  });

  test('shouldRetryResponse, delay and unsafeRetryWrites: inherited from the plugin, overridden per request', () => {
    const shouldRetryResponse = () => true;
    const delay = () => 10;
    const withThem = resolvePluginOptions({ shouldRetryResponse, delay, unsafeRetryWrites: true }).call;
    expect(resolveRequestOptions({ retries: 1 }, withThem)).toMatchObject({
      shouldRetryResponse,
      delay,
      unsafeRetryWrites: true,
      plain: false,
    });
    const other = () => 20;
    expect(resolveRequestOptions({ delay: other, unsafeRetryWrites: false }, withThem)).toMatchObject({
      delay: other,
      unsafeRetryWrites: false,
    });
    expect(resolveRequestOptions({ shouldRetryResponse }, plugin)).toMatchObject({ shouldRetryResponse, plain: false });
  });

  test('an object overrides only the fields it names', () => {
    const merged = resolveRequestOptions({ retries: 1 }, plugin);
    expect(merged).toMatchObject({ retries: 1, baseDelayMs: 10, maxDelayMs: 30000 });
  });

  test('a string idempotencyKey pins the key; false turns keys off', () => {
    expect(resolveRequestOptions({ idempotencyKey: 'order-42' }, plugin)).toMatchObject({ pinnedKey: 'order-42' });
    expect(resolveRequestOptions({ idempotencyKey: false }, plugin)).toMatchObject({ idempotencyKey: false });
  });

  test.each([
    [{ budget: false }, /config.retry.budget can be set only in retryPlugin\(\{ budget \}\), not per request/],
    [{ breaker: false }, /config.retry.breaker can be set only in retryPlugin\(\{ breaker \}\), not per request/],
    [{ retries: -2 }, /config.retry.retries/],
    [{ idempotencyKey: 'bad\r\nkey' }, /config.retry.idempotencyKey must be 1-255 printable ASCII/],
    [{ idempotencyKey: 'ключ' }, /printable ASCII/],
    [{ idempotencyKey: 'k'.repeat(256) }, /printable ASCII/],
    ['yes', /config.retry must be false or an options object/],
  ])('%p is refused with a TypeError', (field, message) => {
    expect(() => resolveRequestOptions(field, plugin)).toThrow(TypeError);
    expect(() => resolveRequestOptions(field, plugin)).toThrow(message);
  });

  test('__proto__ and constructor keys are refused and pollute nothing', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "retries": 1}') as unknown;
    expect(() => resolveRequestOptions(hostile, plugin)).toThrow(/__proto__ is not a known option/);
    expect(() => resolveRequestOptions({ constructor: { prototype: { polluted: true } } }, plugin)).toThrow(
      /constructor is not a known option/,
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
