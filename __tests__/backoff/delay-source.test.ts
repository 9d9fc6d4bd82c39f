/**
 * `delaySource` is one documented value per wait source, the same on every run: a 429 whose
 * `Retry-After` is an HTTP date is `'retry-after'`, though the rate limiter that the 429 engaged
 * holds the origin for the same wait. The plugin's clock here moves 1 ms at every read (as a busy
 * host's clock moves between two reads), which made the limiter's hold come out a millisecond longer
 * than the call's own wait whenever the two were read apart, and the source `'rate-limit'`.
 * Real node:http server on 127.0.0.1; the wait itself is ended by `close()`, not slept.
 */
import axios from 'axios';
import { retryPlugin } from '../../lib';
import type { RetryEvent } from '../../lib';
import { serverPerTest, until } from '../support/test-server';

const t = serverPerTest();

test.each(Array.from({ length: 12 }, (_, run) => run))(
  'run %i: a 429 with an HTTP-date Retry-After waits 2 s from the date, source retry-after',
  async () => {
    let clock = Date.UTC(2026, 11, 6, 12, 0, 0);
    const date = new Date(clock + 2000).toUTCString();
    t.handler = (_req, res) => res.writeHead(429, { 'retry-after': date }).end();
    const events: RetryEvent[] = [];
    const plugin = retryPlugin({ now: () => clock++, onRetry: (event) => void events.push(event) });
    t.plugins.push(plugin);
    const http = axios.create();
    plugin.install(http);
    const call = http.get(`${t.server.url}/r`).catch((error: unknown) => error);
    await until(() => events.length === 1);
    expect(events[0]!.delaySource).toBe('retry-after');
    // The clock moved a few ms while the answer was read: the wait is what is left of the 2 s.
    expect(events[0]!.delayMs).toBeGreaterThan(1980);
    expect(events[0]!.delayMs).toBeLessThanOrEqual(2000);
    await plugin.close();
    await call;
  },
);
