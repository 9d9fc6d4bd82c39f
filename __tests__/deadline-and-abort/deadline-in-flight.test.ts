/**
 * deadlineMs bounds the whole call, on both of axios's Node adapters: an attempt in flight ends at
 * the deadline, the caller's signal still ends the call sooner, and axios's own shorter timeout
 * still applies per attempt. Real node:http servers on 127.0.0.1.
 */
import axios, { AxiosError } from 'axios';
import { rejection } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { serverPerTest } from '../support/test-server';

const ADAPTERS = ['http', 'fetch'] as const;

const t = serverPerTest();
const setup = setupOn(t, 'http');

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
    // The answer is held and the attempt's timeout is 5 s: under 4 s, only the deadline ended it.
    expect(elapsed).toBeLessThan(4000);
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
    // The timeout ends the held first attempt, and the retry's answer must come inside it: at 100 ms,
    // beside a busy loop per core, one loopback round trip in a hundred took over 50 ms, the slowest 230.
    const response = await http.get(`${t.server.url}/slow`, { timeout: 500 });
    expect(response.status).toBe(200);
    expect(response.config.retryState?.attempts).toBe(2);
    // The caller's config keeps its own timeout for a later re-send.
    expect(response.config.timeout === 500 || response.config.timeout === undefined).toBe(true);
  });
});
