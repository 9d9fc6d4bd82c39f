/**
 * Injected latency, on fake timers: it delays the real send (or the answer, after), counts against
 * the attempt's timeout as a slow network does (the seed's 15 s hang against a 1 s timeout), and a
 * cancel or plugin.close() ends it at once with no timer left behind. Real node:http server.
 */
import axios from 'axios';
import type { AxiosError } from 'axios';
import type { RetryPluginOptions } from '../../lib';
import { fake, rejection, storyOf, until } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { serverPerTest } from '../support/test-server';

const t = serverPerTest();
const setup = setupOn(t);

async function failure(promise: Promise<unknown>): Promise<AxiosError> {
  return (await rejection(promise)) as unknown as AxiosError;
}

describe.each(['http', 'fetch'] as const)('over the %s adapter', (adapter) => {
  const client = (options: RetryPluginOptions) => setup(options, adapter);

  test("phase 'before': the request leaves after the latency", async () => {
    fake();
    const { http } = client({ chaos: { faults: [{ rate: 1, latencyMs: 1000 }] } });
    let done = false;
    const call = http.get(`${t.server.url}/r`).finally(() => (done = true));
    await jest.advanceTimersByTimeAsync(999);
    expect(t.server.requests).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    await until(() => done);
    const response = await call;
    expect(response.status).toBe(200);
    expect(t.server.requests).toHaveLength(1);
    // A latency that did not change the outcome is not an injected outcome.
    expect(response.config.retryState).toMatchObject({ attempts: 1, injected: 0 });
  });

  test('a 15 s hang against a 1 s timeout: the adapter’s timeout at 1 s, retried, then the call succeeds', async () => {
    fake();
    const { http } = client({
      retries: 2,
      chaos: { faults: [{ rate: 1, latencyMs: 15_000, match: { path: '/slow' } }] },
      beforeAttempt: (config, { attempt }) => {
        // The retry goes to a path the fault does not match.
        if (attempt > 1) config.url = `${t.server.url}/fast`;
      },
    });
    let done = false;
    const call = http.get(`${t.server.url}/slow`, { timeout: 1000 }).finally(() => (done = true));
    await jest.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    expect(t.server.requests).toHaveLength(0);
    // The timeout at 1 s, then the retry's wait (0 ms, which a timer rounds up to 1).
    await jest.advanceTimersByTimeAsync(2);
    await until(() => done);
    const response = await call;
    expect(response.status).toBe(200);
    expect(response.config.retryState).toMatchObject({ attempts: 2, injected: 1, delaysMs: [0] });
    expect(t.server.requests.map((r) => r.url)).toEqual(['/fast']);
  });

  test('a latency that reaches the timeout fails as the adapter’s own timeout, marked', async () => {
    fake();
    const { http } = client({ retries: 0, chaos: { faults: [{ rate: 1, latencyMs: 5000 }] } });
    const call = failure(http.get(`${t.server.url}/r`, { timeout: 300 }));
    await jest.advanceTimersByTimeAsync(300);
    const error = await call;
    expect(error.code).toBe(adapter === 'http' ? 'ECONNABORTED' : 'ETIMEDOUT');
    expect(storyOf(error).words).toBe('timeout of 300ms exceeded');
    expect((error as unknown as { injected: unknown }).injected).toEqual({
      fault: 0,
      phase: 'before',
      kind: 'latency',
    });
    expect(t.server.requests).toHaveLength(0);
  });

  test('a latency shorter than the timeout leaves the send what is left of it', async () => {
    fake();
    t.handler = (_req, res) => void setTimeout(() => res.end('late'), 5000);
    const { http } = client({ retries: 0, chaos: { faults: [{ rate: 1, latencyMs: 200 }] } });
    let done = false;
    const call = failure(http.get(`${t.server.url}/r`, { timeout: 300 })).finally(() => (done = true));
    await jest.advanceTimersByTimeAsync(200);
    await until(() => t.server.requests.length === 1);
    await jest.advanceTimersByTimeAsync(100);
    await until(() => done);
    const error = await call;
    expect(storyOf(error).words).toBe('timeout of 100ms exceeded');
    // The server was reached: this timeout is the real one, not injected.
    expect(error.config?.retryState).toMatchObject({ attempts: 1, injected: 0 });
  });

  test("phase 'after': the server answers at once, the caller gets the answer after the latency", async () => {
    fake();
    const { http } = client({ chaos: { faults: [{ rate: 1, latencyMs: 800, phase: 'after' }] } });
    let done = false;
    const call = http.get(`${t.server.url}/r`).finally(() => (done = true));
    await until(() => t.server.requests.length === 1);
    await jest.advanceTimersByTimeAsync(799);
    expect(done).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await until(() => done);
    expect((await call).data).toBe('ok');
  });

  test('a cancel during the latency ends the call at once: nothing sent, no timer left', async () => {
    fake();
    const { http } = client({ chaos: { faults: [{ rate: 1, latencyMs: 60_000 }] } });
    const controller = new AbortController();
    const call = failure(http.get(`${t.server.url}/r`, { signal: controller.signal }));
    await jest.advanceTimersByTimeAsync(10);
    expect(jest.getTimerCount()).toBe(1);
    controller.abort();
    const error = await call;
    expect(axios.isCancel(error)).toBe(true);
    expect(error.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'aborted' });
    expect(jest.getTimerCount()).toBe(0);
    expect(t.server.requests).toHaveLength(0);
  });

  test('plugin.close() during the latency ends the call at once', async () => {
    fake();
    const { http, plugin } = client({ chaos: { faults: [{ rate: 1, latencyMs: 60_000 }] } });
    const call = failure(http.get(`${t.server.url}/r`));
    await jest.advanceTimersByTimeAsync(10);
    await plugin.close();
    const error = await call;
    expect(axios.isCancel(error)).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
    expect(t.server.requests).toHaveLength(0);
  });
});
