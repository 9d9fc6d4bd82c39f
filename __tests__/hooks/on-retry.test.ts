/**
 * onRetry observes; it does not replace the outcome: an onRetry that throws or rejects leaves the
 * caller the last AxiosError (hook-failed), and an abort or plugin.close() during a slow async
 * onRetry ends the call at once. Real node:http servers on 127.0.0.1.
 */
import axios, { AxiosError } from 'axios';
import { RetryBudget } from '../../lib';
import type { GiveUpEvent } from '../../lib';
import { rejection } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { serverPerTest, until } from '../support/test-server';

const t = serverPerTest();
const setup = setupOn(t, 'http');

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
    // The hook never returns on its own: only the abort ends the call (the bound tells it from a hang).
    expect(Date.now() - started).toBeLessThan(5000);
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
});
