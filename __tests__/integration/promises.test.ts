/**
 * The README's promises, tried the way a new user breaks them: real node:http servers on
 * 127.0.0.1, both of axios's Node adapters, FormData uploads, deadlines, hooks that throw, second
 * installs, re-sent configs and failures without a code.
 */
import axios, { AxiosError, AxiosHeaders } from 'axios';
import type { AxiosInstance, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { RetryBudget, retryPlugin } from '../../lib';
import type { GiveUpEvent, RetryPlugin, RetryPluginOptions } from '../../lib';
import { rejection } from '../support/helpers';
import { serverPerTest, until } from '../support/test-server';
import type { Handler } from '../support/test-server';

const ADAPTERS = ['http', 'fetch'] as const;

const t = serverPerTest();

function setup(options: RetryPluginOptions = {}, adapter: 'http' | 'fetch' = 'http') {
  const http = axios.create({ adapter });
  const plugin = retryPlugin({ random: () => 0, budget: false, breaker: false, ...options });
  plugin.install(http);
  t.plugins.push(plugin);
  return { http, plugin };
}

/** 503 for the first request, then 200. */
const blipOnce: Handler = (_req, res, index) => res.writeHead(index === 0 ? 503 : 200).end(index === 0 ? 'busy' : 'ok');

describe.each(ADAPTERS)('every attempt sends the same bytes (%s adapter)', (adapter) => {
  test('a native FormData with a Blob and a File part: identical bytes and Content-Type on the retry', async () => {
    t.handler = blipOnce;
    const { http } = setup({ idempotencyKey: { serverDedupes: true } }, adapter);
    const form = new FormData();
    form.append('amount', '4200');
    form.append('receipt', new Blob(['line one\nline two'], { type: 'text/plain' }), 'receipt.txt');
    form.append('photo', new File(['pretend-jpeg'], 'photo.jpg', { type: 'image/jpeg' }));
    const response = await http.post(`${t.server.url}/payments`, form);
    expect(response.status).toBe(200);
    const [first, second] = t.server.requests;
    expect(t.server.requests).toHaveLength(2);
    expect(first!.headers['idempotency-key']).toBe(second!.headers['idempotency-key']);
    expect(first!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(second!.headers['content-type']).toBe(first!.headers['content-type']);
    expect(second!.body).toBe(first!.body);
    expect(first!.body).toContain('line one\nline two');
    expect(first!.body).toContain('pretend-jpeg');
  });

  test.each([
    ['URLSearchParams', () => new URLSearchParams({ a: '1', b: 'two' })],
    ['a typed array', () => new TextEncoder().encode('bytes!')],
    ['a string', () => 'plain text'],
    ['a JSON object', () => ({ amount: 4200, currency: 'EUR' })],
    ['a Blob', () => new Blob(['blob body'], { type: 'application/octet-stream' })],
  ])('%s: identical bytes and Content-Type on the retry', async (_name, body) => {
    t.handler = blipOnce;
    const { http } = setup({ idempotencyKey: { serverDedupes: true } }, adapter);
    await http.post(`${t.server.url}/things`, body());
    const [first, second] = t.server.requests;
    expect(t.server.requests).toHaveLength(2);
    expect(second!.body).toBe(first!.body);
    expect(first!.body.length).toBeGreaterThan(0);
    expect(second!.headers['content-type']).toBe(first!.headers['content-type']);
  });

  test('a failed attempt’s streamed response body is released before the retry', async () => {
    let firstClosed = false;
    t.handler = (req, res, index) => {
      if (index > 0) return void res.writeHead(200).end('ok');
      res.socket!.on('close', () => (firstClosed = true));
      // A large error body that the server would keep streaming until the client lets go.
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.write('x'.repeat(256 * 1024));
    };
    const { http } = setup({ baseDelayMs: 20, random: () => 0.5 }, adapter);
    const response = await http.get(`${t.server.url}/report`, { responseType: 'stream' });
    expect(response.status).toBe(200);
    (response.data as { destroy?: () => void; cancel?: () => Promise<void> }).destroy?.();
    await until(() => firstClosed, 1000);
    expect(t.server.requests).toHaveLength(2);
  });
});

describe.each(ADAPTERS)('deadlineMs bounds the whole call (%s adapter)', (adapter) => {
  test('an attempt in flight ends at the deadline: stop reason deadline, nothing waits for the slow response', async () => {
    const pending: Array<() => void> = [];
    t.handler = (_req, res) => void pending.push(() => res.writeHead(200).end('late'));
    const { http } = setup({ deadlineMs: 300 }, adapter);
    const started = Date.now();
    const error = (await rejection(http.get(`${t.server.url}/slow`, { timeout: 5000 }))) as unknown as AxiosError;
    const elapsed = Date.now() - started;
    expect(error.config?.retryState?.stopReason).toBe('deadline');
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(1500);
    expect(t.server.requests).toHaveLength(1);
    for (const reply of pending) reply();
  });

  test("the caller's own signal still ends the call before the deadline", async () => {
    t.handler = () => undefined;
    const { http } = setup({ deadlineMs: 2000 }, adapter);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await rejection(http.get(`${t.server.url}/slow`, { signal: controller.signal }));
    expect(axios.isCancel(error)).toBe(true);
    expect((error as unknown as AxiosError).config?.retryState?.stopReason).toBe('aborted');
  });

  test("axios's own timeout still applies per attempt when it is shorter than the time left", async () => {
    t.handler = (_req, res, index) => (index === 0 ? undefined : res.writeHead(200).end('ok'));
    const { http } = setup({ deadlineMs: 5000 }, adapter);
    const response = await http.get(`${t.server.url}/slow`, { timeout: 100 });
    expect(response.status).toBe(200);
    expect(response.config.retryState?.attempts).toBe(2);
    // The caller's config keeps its own timeout for a later re-send.
    expect(response.config.timeout === 100 || response.config.timeout === undefined).toBe(true);
  });
});

describe('hooks observe; they do not replace the outcome', () => {
  test.each([
    [
      'throws',
      () => {
        throw new Error('hook broke');
      },
    ],
    ['rejects', () => Promise.reject(new Error('hook broke'))],
  ])(
    'an onRetry that %s: the caller gets the last AxiosError (hook-failed), one onGiveUp, no token spent',
    async (_name, onRetry) => {
      t.handler = (_req, res) => res.writeHead(503).end('busy');
      const budget = new RetryBudget();
      const gaveUp: GiveUpEvent[] = [];
      const { http } = setup({ budget, onRetry, onGiveUp: (event) => void gaveUp.push(event) });
      const error = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
      expect(error).toBeInstanceOf(AxiosError);
      expect(error.response?.status).toBe(503);
      expect(error.config?.retryState?.stopReason).toBe('hook-failed');
      expect((error.config?.retryState?.hookError as Error).message).toBe('hook broke');
      expect(gaveUp).toHaveLength(1);
      expect(gaveUp[0]!.stopReason).toBe('hook-failed');
      expect(t.server.requests).toHaveLength(1);
      expect(budget.state()).toMatchObject({ retries: 0, granted: 0 });
    },
  );

  test('an abort during a slow async onRetry ends the call at once, nothing more is sent, the token goes back', async () => {
    t.handler = (_req, res) => res.writeHead(503).end('busy');
    const budget = new RetryBudget();
    const controller = new AbortController();
    let release: () => void = () => undefined;
    const { http } = setup({
      budget,
      onRetry: () => {
        setTimeout(() => controller.abort(), 20);
        return new Promise<void>((resolve) => (release = resolve));
      },
    });
    const started = Date.now();
    const error = await rejection(http.get(`${t.server.url}/r`, { signal: controller.signal }));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(axios.isCancel(error)).toBe(true);
    release();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(t.server.requests).toHaveLength(1);
    expect(budget.state()).toMatchObject({ retries: 0 });
  });

  test('plugin.close() during a slow async onRetry ends the call at once with its last error', async () => {
    t.handler = (_req, res) => res.writeHead(503).end('busy');
    let hookStarted = false;
    const { http, plugin } = setup({
      onRetry: () => {
        hookStarted = true;
        return new Promise<void>(() => undefined);
      },
    });
    const call = rejection(http.get(`${t.server.url}/r`));
    await until(() => hookStarted);
    await plugin.close();
    const error = (await call) as unknown as AxiosError;
    expect(error.response?.status).toBe(503);
    expect(error.config?.retryState?.stopReason).toBe('aborted');
    expect(t.server.requests).toHaveLength(1);
  });

  test.each(['signal', 'CancelToken'] as const)(
    'a call cancelled (%s) before it was sent: one onGiveUp, stop reason aborted',
    async (how) => {
      const gaveUp: GiveUpEvent[] = [];
      const { http } = setup({ onGiveUp: (event) => void gaveUp.push(event) });
      let config: Parameters<typeof http.get>[1];
      if (how === 'signal') {
        const controller = new AbortController();
        controller.abort();
        config = { signal: controller.signal };
      } else {
        const source = axios.CancelToken.source();
        source.cancel('never mind');
        config = { cancelToken: source.token };
      }
      const error = await rejection(http.get(`${t.server.url}/r`, config));
      expect(axios.isCancel(error)).toBe(true);
      expect(gaveUp).toHaveLength(1);
      expect(gaveUp[0]!.stopReason).toBe('aborted');
      expect(gaveUp[0]!.retryState).toMatchObject({ attempts: 0, stopReason: 'aborted' });
      expect(t.server.requests).toHaveLength(0);
    },
  );

  test('a call that fails in axios’s response transform (strict JSON): one onGiveUp, stop reason not-retryable', async () => {
    t.handler = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{not json');
    const gaveUp: GiveUpEvent[] = [];
    const { http } = setup({ onGiveUp: (event) => void gaveUp.push(event) });
    const error = (await rejection(
      http.get(`${t.server.url}/r`, { responseType: 'json', transitional: { silentJSONParsing: false } }),
    )) as unknown as AxiosError;
    expect(gaveUp).toHaveLength(1);
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
  });

  test('an onGiveUp that throws does not replace the caller’s error', async () => {
    t.handler = (_req, res) => res.writeHead(404).end('gone');
    const { http } = setup({
      onGiveUp: () => {
        throw new Error('logger down');
      },
    });
    const error = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(error.response?.status).toBe(404);
    expect((error.config?.retryState?.hookError as Error).message).toBe('logger down');
  });
});

describe('installs', () => {
  test('the same plugin installed twice: one retry loop, one onGiveUp per failed call', async () => {
    t.handler = (_req, res) => res.writeHead(503).end('busy');
    const gaveUp: GiveUpEvent[] = [];
    const plugin = retryPlugin({
      retries: 2,
      random: () => 0,
      budget: false,
      breaker: false,
      onGiveUp: (e) => void gaveUp.push(e),
    });
    t.plugins.push(plugin);
    const http = axios.create();
    const eject1 = plugin.install(http);
    const eject2 = plugin.install(http);
    const error = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(t.server.requests).toHaveLength(3);
    expect(gaveUp).toHaveLength(1);
    expect(error.config?.retryState).toMatchObject({ attempts: 3, stopReason: 'retries-exhausted' });
    // The interceptors stay until the last eject.
    eject1();
    await rejection(http.get(`${t.server.url}/r`));
    expect(t.server.requests).toHaveLength(6);
    eject2();
    await rejection(http.get(`${t.server.url}/r`));
    expect(t.server.requests).toHaveLength(7);
  });

  test('onGiveUp runs after response interceptors added later (one that saves the call is not reported); eject restores use', async () => {
    t.handler = (req, res) => res.writeHead(req.headers.authorization === 'fresh' ? 200 : 401).end();
    const gaveUp: GiveUpEvent[] = [];
    const http = axios.create();
    const plugin = retryPlugin({ budget: false, breaker: false, onGiveUp: (e) => void gaveUp.push(e) });
    t.plugins.push(plugin);
    const eject = plugin.install(http);
    // Added after the plugin, like axios-auth-refresh: re-sends a 401 with a fresh token.
    http.interceptors.response.use(undefined, (error: AxiosError) => {
      if (error.response?.status !== 401 || error.config!.headers.Authorization === 'fresh') throw error;
      error.config!.headers.Authorization = 'fresh';
      return http.request(error.config!);
    });
    expect((await http.get(`${t.server.url}/me`)).status).toBe(200);
    expect(gaveUp).toEqual([]);
    eject();
    expect(Object.prototype.hasOwnProperty.call(http.interceptors.response, 'use')).toBe(false);
  });

  test('a different plugin on an instance that has one throws a TypeError saying so', () => {
    const http = axios.create();
    const first = retryPlugin();
    const second = retryPlugin();
    t.plugins.push(first, second);
    const eject = first.install(http);
    expect(() => second.install(http)).toThrow(TypeError);
    expect(() => second.install(http)).toThrow(/already has a different retry plugin installed/);
    eject();
    expect(() => second.install(http)).not.toThrow();
  });
});

describe('where the plugin sits: the instance’s default adapter', () => {
  test('install puts the plugin on the instance’s default adapter; the last eject puts the original back', () => {
    const http = axios.create();
    const original = http.defaults.adapter;
    const plugin = retryPlugin();
    t.plugins.push(plugin);
    const eject = plugin.install(http);
    expect(typeof http.defaults.adapter).toBe('function');
    expect(http.defaults.adapter).not.toBe(original);
    eject();
    expect(http.defaults.adapter).toBe(original);
  });

  test('a child made with create() after install starts without the plugin: one request, no key', async () => {
    t.handler = (_req, res) => res.writeHead(503).end();
    const { http } = setup();
    const child = http.create();
    const error = (await rejection(child.post(`${t.server.url}/pay`, { amount: 1 }))) as unknown as AxiosError;
    expect(error.response?.status).toBe(503);
    expect(t.server.requests).toHaveLength(1);
    expect(t.server.requests[0]!.headers['idempotency-key']).toBeUndefined();
    expect(error.config?.retryState).toBeUndefined();
  });

  test('installed on the axios default export, instances created afterwards start without it', async () => {
    t.handler = (_req, res) => res.writeHead(503).end();
    const plugin = retryPlugin({ random: () => 0, retries: 1, budget: false, breaker: false });
    t.plugins.push(plugin);
    const eject = plugin.install(axios);
    try {
      await rejection(axios.create().get(`${t.server.url}/child`));
      expect(t.server.requests).toHaveLength(1);
      await rejection(axios.get(`${t.server.url}/root`));
      expect(t.server.requests.map((r) => r.url)).toEqual(['/child', '/root', '/root']);
    } finally {
      eject();
    }
    expect(typeof axios.defaults.adapter).not.toBe('function');
  });

  test('an instance built from an installed one’s adapter passes its calls through untouched', async () => {
    t.handler = (_req, res) => res.writeHead(503).end();
    const { http } = setup();
    const copy = axios.create({ adapter: http.defaults.adapter! });
    await rejection(copy.get(`${t.server.url}/r`));
    expect(t.server.requests).toHaveLength(1);
  });

  test('a second plugin installed over a copied plugin adapter runs one retry loop, not two', async () => {
    t.handler = (_req, res) => res.writeHead(503).end();
    const { http } = setup({ retries: 2 });
    const copy = axios.create({ adapter: http.defaults.adapter! });
    const second = retryPlugin({ random: () => 0, retries: 2, budget: false, breaker: false });
    t.plugins.push(second);
    second.install(copy);
    const error = (await rejection(copy.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(t.server.requests).toHaveLength(3);
    expect(error.config?.retryState).toMatchObject({ attempts: 3, stopReason: 'retries-exhausted' });
  });

  test.each(ADAPTERS)('a per-request adapter (%s) is retried, and a re-sent error.config keeps it', async (adapter) => {
    t.handler = (_req, res) => res.writeHead(503).end();
    const { http } = setup({ retries: 1 });
    const error = (await rejection(http.get(`${t.server.url}/r`, { adapter }))) as unknown as AxiosError;
    expect(t.server.requests).toHaveLength(2);
    await rejection(http.request(error.config!));
    expect(t.server.requests).toHaveLength(4);
    // undici's fetch sends Sec-Fetch-Mode; axios's http adapter does not.
    const viaFetch = t.server.requests.map((r) => r.headers['sec-fetch-mode'] !== undefined);
    expect(viaFetch).toEqual(Array(4).fill(adapter === 'fetch'));
  });
});

/** Installs the plugin and a request interceptor on `http`, in the order named. */
function installInOrder(
  order: string,
  http: AxiosInstance,
  plugin: RetryPlugin,
  interceptor: (config: InternalAxiosRequestConfig) => InternalAxiosRequestConfig,
): void {
  if (order === 'plugin first') plugin.install(http);
  http.interceptors.request.use(interceptor);
  if (order !== 'plugin first') plugin.install(http);
}

describe('the Idempotency-Key is attached when the call reaches the adapter', () => {
  test.each(['plugin first', 'interceptor first'])(
    'a request interceptor does not see it (%s); the server and beforeAttempt do',
    async (order) => {
      t.handler = blipOnce;
      const http = axios.create();
      const plugin = retryPlugin({
        random: () => 0,
        budget: false,
        breaker: false,
        idempotencyKey: { serverDedupes: true },
        beforeAttempt: (config) => void inHook.push(config.headers.get('Idempotency-Key')),
      });
      t.plugins.push(plugin);
      const inInterceptor: unknown[] = [];
      const inHook: unknown[] = [];
      installInOrder(order, http, plugin, (config) => {
        inInterceptor.push(config.headers.get('Idempotency-Key'));
        return config;
      });
      const response = await http.post(`${t.server.url}/pay`, { amount: 1 });
      const sent = t.server.requests.map((r) => r.headers['idempotency-key']);
      expect(inInterceptor).toEqual([undefined]);
      expect(sent).toHaveLength(2);
      expect(sent[0]).toBe(sent[1]);
      expect(inHook).toEqual(sent);
      expect(response.config.retryState?.idempotencyKey).toBe(sent[0]);
    },
  );

  test.each(['plugin first', 'interceptor first'])(
    'a key a request interceptor sets is the one sent on every attempt (%s)',
    async (order) => {
      t.handler = blipOnce;
      const http = axios.create();
      const plugin = retryPlugin({ random: () => 0, budget: false, breaker: false });
      t.plugins.push(plugin);
      installInOrder(order, http, plugin, (config) => {
        config.headers.set('Idempotency-Key', 'signed-order-7');
        return config;
      });
      const response = await http.post(`${t.server.url}/pay`, { amount: 1 });
      expect(t.server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['signed-order-7', 'signed-order-7']);
      expect(response.config.retryState?.idempotencyKey).toBe('signed-order-7');
    },
  );

  test('a header set to false turns the key off for that call: none is sent and a 503 POST is not repeated', async () => {
    t.handler = (_req, res) => res.writeHead(503).end();
    const { http } = setup();
    const error = (await rejection(
      http.post(`${t.server.url}/pay`, { amount: 1 }, { headers: { 'Idempotency-Key': false } }),
    )) as unknown as AxiosError;
    expect(t.server.requests).toHaveLength(1);
    expect(t.server.requests[0]!.headers['idempotency-key']).toBeUndefined();
    expect(error.config?.retryState?.idempotencyKey).toBeUndefined();
    expect(error.config?.retryState?.stopReason).toBe('non-idempotent');
  });
});

describe('Idempotency-Key: a key you set yourself is kept, and makes the call keyed', () => {
  test.each([
    ['an AxiosHeaders header', () => ({ headers: new AxiosHeaders({ 'Idempotency-Key': 'mine-1' }) })],
    ['a plain-object header in lower case', () => ({ headers: { 'idempotency-key': 'mine-1' } })],
  ])('with idempotencyKey: false, a POST carrying %s is retried', async (_name, config) => {
    t.handler = blipOnce;
    const { http } = setup({ idempotencyKey: false });
    const response = await http.post(`${t.server.url}/pay`, { amount: 1 }, config());
    expect(response.status).toBe(200);
    expect(t.server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['mine-1', 'mine-1']);
    expect(response.config.retryState?.idempotencyKey).toBe('mine-1');
  });

  test('with idempotencyKey: false, a key in the instance defaults makes POSTs keyed', async () => {
    t.handler = blipOnce;
    const http = axios.create({ headers: { common: { 'Idempotency-Key': 'from-defaults' } } });
    const plugin = retryPlugin({ idempotencyKey: false, random: () => 0, budget: false, breaker: false });
    t.plugins.push(plugin);
    plugin.install(http);
    const response = await http.post(`${t.server.url}/pay`, { amount: 1 });
    expect(response.status).toBe(200);
    expect(t.server.requests).toHaveLength(2);
  });

  test('re-sending a successful response’s config is a new operation: it gets a new key', async () => {
    const { http } = setup();
    const first = await http.post(`${t.server.url}/pay`, { amount: 1 });
    const again = await http.request(first.config);
    const [a, b] = t.server.requests.map((r) => r.headers['idempotency-key']);
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(b).not.toBe(a);
    expect(again.config.retryState?.idempotencyKey).toBe(b);
  });

  test('re-sending a failed call’s error.config keeps its key: the same operation, retried by hand', async () => {
    t.handler = (_req, res, index) => res.writeHead(index === 0 ? 503 : 200).end();
    const { http } = setup({ retries: 0 });
    const error = (await rejection(http.post(`${t.server.url}/pay`, { amount: 1 }))) as unknown as AxiosError;
    await http.request(error.config!);
    const [a, b] = t.server.requests.map((r) => r.headers['idempotency-key']);
    expect(b).toBe(a);
  });
});

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
    )) as unknown as AxiosError;
    // The bare failure reaches the caller as an AxiosError with a config, the original as its cause.
    expect(axios.isAxiosError(error)).toBe(true);
    expect((error.cause as Error).message).toBe('socket went away');
    expect(error.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'non-idempotent' });
    expect(gaveUp).toHaveLength(1);
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
