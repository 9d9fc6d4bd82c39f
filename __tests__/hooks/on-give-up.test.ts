/**
 * onGiveUp is called once for a call that fails outside the retry loop too (cancelled before it was
 * sent, a failing response transform), and an onGiveUp that throws does not replace the caller's
 * error. Real node:http servers on 127.0.0.1.
 */
import axios, { AxiosError } from 'axios';
import type { GiveUpEvent } from '../../lib';
import { rejection } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { serverPerTest } from '../support/test-server';

const t = serverPerTest();
const setup = setupOn(t, 'http');

describe('hooks observe; they do not replace the outcome', () => {
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

test('an async onGiveUp that rejects is no unhandled rejection: its error is kept on retryState.hookError', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    t.handler = (_req, res) => res.writeHead(404).end();
    const { http } = setup({
      onGiveUp: async () => {
        throw new Error('the log sink is down');
      },
    });
    const error = (await http.get(`${t.server.url}/missing`).catch((e: unknown) => e)) as {
      config: { retryState: { hookError?: Error } };
    };
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(unhandled).toEqual([]);
    expect(error.config.retryState.hookError?.message).toBe('the log sink is down');
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
