/**
 * `beforeAttempt` runs before every attempt, the first included (token refresh, signing, rate
 * limiting), bounded by the deadline and by aborts. Real node:http servers on 127.0.0.1.
 */
import axios, { AxiosError } from 'axios';
import type { AttemptInfo, GiveUpEvent } from '../../lib';
import { fake, rejection } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { serverPerTest, statuses } from '../support/test-server';

const t = serverPerTest();

const setup = setupOn(t);

describe('beforeAttempt: per-attempt work', () => {
  test('runs before every attempt, the first included, and its header changes reach each attempt', async () => {
    t.handler = statuses(503, 503, 200);
    const infos: AttemptInfo[] = [];
    let token = 0;
    const { http } = setup({
      beforeAttempt: async (config, info) => {
        infos.push(info);
        // A refreshed token per attempt, and a signature over a per-attempt timestamp.
        token += 1;
        config.headers.set('Authorization', `Bearer t${token}`);
        config.headers.set('X-Signed-At', String(1000 + info.attempt));
      },
    });
    await http.get(`${t.server.url}/r`);
    expect(infos.map((i) => i.attempt)).toEqual([1, 2, 3]);
    expect(infos[0]!.timeLeftMs).toBeUndefined();
    expect(t.server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer t1', 'Bearer t2', 'Bearer t3']);
    expect(t.server.requests.map((r) => r.headers['x-signed-at'])).toEqual(['1001', '1002', '1003']);
  });

  test('a limiter in beforeAttempt keeps 2 requests/s across retries (4 calls, 2 retries each)', async () => {
    fake();
    t.handler = statuses(503, 503, 503, 503, 200);
    // The recipe from docs/guides/per-request-overrides.md: a token bucket of 2 per second.
    const limiter = (perSecond: number) => {
      let next = Date.now();
      return () => {
        const at = Math.max(Date.now(), next);
        next = at + 1000 / perSecond;
        return new Promise<void>((resolve) => setTimeout(resolve, at - Date.now()));
      };
    };
    const arrivals: number[] = [];
    const sentAt: number[] = [];
    const take = limiter(2);
    t.handler = (_req, res) => {
      arrivals.push(Date.now());
      res.writeHead(503).end();
    };
    const { http } = setup({
      retries: 2,
      beforeAttempt: async () => {
        await take();
        sentAt.push(Date.now());
      },
    });
    const calls = Array.from({ length: 4 }, (_, i) => http.get(`${t.server.url}/c${i}`).catch(() => undefined));
    for (let i = 0; i < 140 && arrivals.length < 12; i++) {
      await jest.advanceTimersByTimeAsync(50);
      for (let j = 0; j < 3; j++) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await Promise.all(calls);
    expect(arrivals).toHaveLength(12);
    // No 1-second window holds more than two sends, and the server saw the 12 spread over ~5.5 s.
    for (const start of sentAt)
      expect(sentAt.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(2);
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeGreaterThanOrEqual(5400);
  });

  test('bounded by the deadline and by aborts: a hook that never returns does not hold the call', async () => {
    const { http } = setup({ beforeAttempt: () => new Promise<void>(() => undefined) });
    const started = Date.now();
    const late = (await rejection(
      http.get(`${t.server.url}/r`, { retry: { deadlineMs: 100 } }),
    )) as unknown as AxiosError;
    expect(late.config?.retryState?.stopReason).toBe('deadline');
    expect(Date.now() - started).toBeLessThan(1000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const aborted = await rejection(http.get(`${t.server.url}/r`, { signal: controller.signal }));
    expect(axios.isCancel(aborted)).toBe(true);
    expect(t.server.requests).toHaveLength(0);
  });

  test('a hook that throws before the first attempt: an AxiosError (hook-failed), nothing sent, one onGiveUp', async () => {
    const gaveUp: GiveUpEvent[] = [];
    const { http } = setup({
      beforeAttempt: () => {
        throw new Error('no token');
      },
      onGiveUp: (e) => void gaveUp.push(e),
    });
    const error = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(axios.isAxiosError(error)).toBe(true);
    expect((error.cause as Error).message).toBe('no token');
    expect(error.config?.retryState).toMatchObject({ attempts: 0, stopReason: 'hook-failed' });
    expect(gaveUp).toHaveLength(1);
    expect(t.server.requests).toHaveLength(0);
  });
});
