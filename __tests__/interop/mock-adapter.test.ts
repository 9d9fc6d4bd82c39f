/**
 * axios-mock-adapter replaces the instance's adapter; the plugin sends every attempt through
 * whatever adapter the instance has, so each attempt is one request the mock answers. Its failures
 * are classified as the real ones would be: a 503 as a 503, `timeout()` as ECONNABORTED, and
 * `networkError()` (an AxiosError with no code and no response) as an unknown transport failure:
 * retried for idempotent methods and keyed calls, never for a keyless POST.
 */
import axios from 'axios';
import type { AxiosError, AxiosHeaders, AxiosInstance, AxiosRequestConfig } from 'axios';
import MockAdapter from 'axios-mock-adapter';
import { retryPlugin } from '../../lib';
import type { GiveUpEvent, RetryEvent, RetryPlugin, RetryPluginOptions } from '../../lib';
import { storyOf } from '../support/helpers';

const BASE = 'https://api.test';

let http: AxiosInstance;
let mock: MockAdapter;
let plugin: RetryPlugin | undefined;
let retries: RetryEvent[];
let giveUps: GiveUpEvent[];

function install(options: RetryPluginOptions = {}): void {
  plugin = retryPlugin({
    baseDelayMs: 2,
    maxDelayMs: 10,
    random: () => 0.5,
    onRetry: (event) => void retries.push(event),
    onGiveUp: (event) => void giveUps.push(event),
    ...options,
  });
  plugin.install(http);
}

beforeEach(() => {
  http = axios.create({ baseURL: BASE });
  mock = new MockAdapter(http);
  retries = [];
  giveUps = [];
});

afterEach(async () => {
  await plugin?.close();
  plugin = undefined;
  mock.restore();
});

/** The Idempotency-Key a request the mock received carried (its config's headers are AxiosHeaders). */
const keyOf = (config: AxiosRequestConfig): unknown => (config.headers as AxiosHeaders).get('Idempotency-Key');

const failure = (promise: Promise<unknown>): Promise<AxiosError> =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as AxiosError,
  );

describe('install order', () => {
  test('a mock made after the plugin (it replaces the instance’s adapter) is retried the same; restore() puts the plugin’s back', async () => {
    mock.restore();
    install();
    const pluginAdapter = http.defaults.adapter;
    const late = new MockAdapter(http);
    late
      .onGet('/v1/items')
      .replyOnce(503)
      .onGet('/v1/items')
      .reply(200, { items: [2] });

    const response = await http.get('/v1/items');
    expect(response.data).toEqual({ items: [2] });
    expect(late.history.get).toHaveLength(2);
    expect(response.config.retryState).toMatchObject({ attempts: 2 });

    late.restore();
    expect(http.defaults.adapter).toBe(pluginAdapter);
  });
});

describe('replyOnce(503), then 200', () => {
  test('a GET is retried once and resolves with the 200; the mock saw two requests', async () => {
    install();
    mock
      .onGet('/v1/items')
      .replyOnce(503)
      .onGet('/v1/items')
      .reply(200, { items: [1] });

    const response = await http.get('/v1/items');

    expect(response.status).toBe(200);
    expect(response.data).toEqual({ items: [1] });
    expect(mock.history.get).toHaveLength(2);
    expect(response.config.retryState).toMatchObject({ attempts: 2, delaysMs: [1] });
    expect(retries.map((e) => e.reason)).toEqual(['503']);
    expect(giveUps).toEqual([]);
  });

  test('a POST is retried with the same Idempotency-Key on both requests', async () => {
    install({ idempotencyKey: { serverDedupes: true } });
    mock.onPost('/v1/payments').replyOnce(503).onPost('/v1/payments').reply(201, { id: 'pay_1' });

    const response = await http.post('/v1/payments', { amount: 42 });

    expect(response.status).toBe(201);
    const key = response.config.retryState?.idempotencyKey;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(mock.history.post.map(keyOf)).toEqual([key, key]);
    expect(mock.history.post.map((config) => config.data)).toEqual(['{"amount":42}', '{"amount":42}']);
  });

  test('the budget counts the request and its retry, and the breaker the call, as with a real server', async () => {
    install({ breaker: { volumeThreshold: 50 } });
    mock.onGet('/v1/items').replyOnce(503).onGet('/v1/items').reply(200);

    await http.get('/v1/items');

    expect(plugin!.budget(BASE)?.state()).toMatchObject({ requests: 1, retries: 1, granted: 1 });
    // The breaker counts logical calls: this one succeeded once its retry did.
    expect(plugin!.breaker(BASE)?.stats).toMatchObject({ fires: 1, failures: 0, successes: 1 });
  });
});

describe('timeoutOnce()', () => {
  test('a GET that times out once is retried as ECONNABORTED and resolves', async () => {
    install();
    mock.onGet('/v1/slow').timeoutOnce().onGet('/v1/slow').reply(200, 'ok');

    const response = await http.get('/v1/slow', { timeout: 1000 });

    expect(response.data).toBe('ok');
    expect(mock.history.get).toHaveLength(2);
    expect(response.config.retryState?.attempts).toBe(2);
    expect(retries.map((e) => e.reason)).toEqual(['ECONNABORTED']);
  });

  test('a keyless POST that times out is not repeated: one request, non-idempotent, one onGiveUp', async () => {
    install({ idempotencyKey: false });
    mock.onPost('/v1/payments').timeoutOnce().onPost('/v1/payments').reply(201);

    const error = await failure(http.post('/v1/payments', { amount: 42 }, { timeout: 1000 }));

    expect(error.code).toBe('ECONNABORTED');
    expect(mock.history.post).toHaveLength(1);
    expect(error.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'non-idempotent' });
    expect(giveUps.map((e) => e.stopReason)).toEqual(['non-idempotent']);
  });
});

describe('networkErrorOnce(): no code, no response', () => {
  test('a GET is retried and resolves; retryState counts both attempts', async () => {
    install();
    mock.onGet('/v1/items').networkErrorOnce().onGet('/v1/items').reply(200, { items: [] });

    const response = await http.get('/v1/items');

    expect(response.data).toEqual({ items: [] });
    expect(mock.history.get).toHaveLength(2);
    expect(response.config.retryState).toMatchObject({ attempts: 2, delaysMs: [1] });
    expect(retries).toHaveLength(1);
    expect(giveUps).toEqual([]);
  });

  test('a keyed POST is retried with its key', async () => {
    install({ idempotencyKey: { serverDedupes: true } });
    mock.onPost('/v1/payments').networkErrorOnce().onPost('/v1/payments').reply(201);

    const response = await http.post('/v1/payments', { amount: 42 });

    expect(response.status).toBe(201);
    const key = response.config.retryState?.idempotencyKey;
    expect(mock.history.post.map(keyOf)).toEqual([key, key]);
  });

  test('a keyless POST is not repeated: one request, non-idempotent, one onGiveUp', async () => {
    install({ idempotencyKey: false });
    mock.onPost('/v1/payments').networkErrorOnce().onPost('/v1/payments').reply(201);

    const error = await failure(http.post('/v1/payments', { amount: 42 }));

    expect(storyOf(error)).toEqual({
      words: 'Network Error',
      story: expect.stringMatching(
        /; stopped: non-idempotent — a POST to https:\/\/api.test:443 may have been processed/,
      ),
    });
    expect(mock.history.post).toHaveLength(1);
    expect(error.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'non-idempotent' });
    expect(giveUps.map((e) => e.stopReason)).toEqual(['non-idempotent']);
  });

  test('a GET that keeps failing stops after its retries with the mock error and one onGiveUp', async () => {
    install({ retries: 2 });
    mock.onGet('/v1/items').networkError();

    const error = await failure(http.get('/v1/items'));

    expect(storyOf(error)).toEqual({
      words: 'Network Error',
      story: expect.stringMatching(/^3 attempts over \d+ ms; stopped: retries-exhausted$/),
    });
    expect(error.response).toBeUndefined();
    expect(mock.history.get).toHaveLength(3);
    expect(error.config?.retryState).toMatchObject({ attempts: 3, stopReason: 'retries-exhausted' });
    expect(giveUps).toHaveLength(1);
    expect(giveUps[0]).toMatchObject({ stopReason: 'retries-exhausted', retryState: { attempts: 3 } });
  });
});
