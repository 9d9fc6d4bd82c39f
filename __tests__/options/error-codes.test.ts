/**
 * `errorCodes` is matched whatever its case: a code listed in lower case retries the failure Node
 * reports in upper case, and an adapter's own code is matched whatever case the adapter wrote it in.
 * Counted on the server side (real sockets on 127.0.0.1) and at the adapter.
 */
import axios, { AxiosError } from 'axios';
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { retryPlugin } from '../../lib';
import type { RetryPlugin, RetryPluginOptions } from '../../lib';
import { startServer } from '../support/test-server';
import type { TestServer } from '../support/test-server';

const plugins: RetryPlugin[] = [];
afterEach(async () => {
  while (plugins.length) await plugins.pop()!.close();
});

function installed(
  options: RetryPluginOptions,
  adapter?: (config: InternalAxiosRequestConfig) => Promise<AxiosResponse>,
) {
  const plugin = retryPlugin({ baseDelayMs: 0, random: () => 0, budget: false, breaker: false, ...options });
  plugins.push(plugin);
  const http = axios.create(adapter === undefined ? {} : { adapter });
  plugin.install(http);
  return http;
}

describe('a socket reset (Node: ECONNRESET)', () => {
  let server: TestServer;
  beforeEach(async () => {
    // The first request's socket is destroyed before any answer; the next one is answered.
    server = await startServer((_request, response, index) => {
      if (index === 0) response.socket?.destroy();
      else response.end('ok');
    });
  });
  afterEach(() => server.close());

  test("errorCodes: ['econnreset'] retries it", async () => {
    const response = await installed({ retries: 1, errorCodes: ['econnreset'] }).get(server.url);
    expect(response.data).toBe('ok');
    expect(server.requests).toHaveLength(2);
  });

  test('a list without it does not (the case rule is what made the retry above)', async () => {
    const error = (await installed({ retries: 1, errorCodes: ['etimedout'] })
      .get(server.url)
      .catch((e: unknown) => e)) as AxiosError;
    expect(error.code).toBe('ECONNRESET');
    expect(server.requests).toHaveLength(1);
  });
});

test("an adapter's own code is matched whatever case the adapter writes it in", async () => {
  let calls = 0;
  const adapter = async (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
    calls++;
    if (calls === 1) throw new AxiosError('backend down', 'my_adapter_down', config);
    return { data: 'ok', status: 200, statusText: 'OK', headers: {}, config };
  };
  const response = await installed({ retries: 1, errorCodes: ['MY_ADAPTER_DOWN'] }, adapter).get('http://127.0.0.1/x');
  expect(response.data).toBe('ok');
  expect(calls).toBe(2);
});
