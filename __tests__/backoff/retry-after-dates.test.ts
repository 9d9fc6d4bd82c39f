/**
 * A 503 whose `Retry-After` is an HTTP-date in a form servers really send (RFC 9110's IMF-fixdate,
 * its obsolete RFC 850 and asctime forms, and the common `UTC` zone) waits until that date, not the
 * backoff. Fake timers (the plugin reads the faked `Date.now`), a stand-in adapter below axios that
 * answers 503 with the date, then 200.
 */
import { AxiosError } from 'axios';
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { client, closePlugins, fake } from '../support/helpers';

const NOW = Date.UTC(2026, 11, 7, 8, 49, 30); // Mon, 07 Dec 2026 08:49:30 GMT

afterEach(async () => {
  jest.useRealTimers();
  await closePlugins();
});

/** 503 with `Retry-After: value` on the first attempt, 200 after; the times each attempt was sent. */
function answering(value: string) {
  const sentAt: number[] = [];
  const adapter = async (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
    sentAt.push(Date.now());
    const status = sentAt.length === 1 ? 503 : 200;
    const response = { status, statusText: '', headers: { 'retry-after': value }, config, data: '' };
    if (status === 200) return response;
    throw new AxiosError('Request failed with status code 503', 'ERR_BAD_RESPONSE', config, {}, response);
  };
  return { adapter, sentAt };
}

test.each([
  ['IMF-fixdate with UTC', 'Mon, 07 Dec 2026 08:49:37 UTC'],
  ['IMF-fixdate', 'Mon, 07 Dec 2026 08:49:37 GMT'],
  ['RFC 850 with UTC', 'Monday, 07-Dec-26 08:49:37 UTC'],
  ['RFC 850', 'Monday, 07-Dec-26 08:49:37 GMT'],
  ['asctime', 'Mon Dec  7 08:49:37 2026'],
])('a 503 with Retry-After as %s waits until that date (7 s)', async (_form, value) => {
  fake(NOW);
  const server = answering(value);
  // A backoff of 0 (random 0): a date that was not read would retry at once.
  const { http } = client({ random: () => 0 });
  const call = http.get('http://api.test/r', { adapter: server.adapter });
  await jest.advanceTimersByTimeAsync(6999);
  expect(server.sentAt).toHaveLength(1);
  await jest.advanceTimersByTimeAsync(1);
  const response = await call;
  expect(server.sentAt).toEqual([NOW, NOW + 7000]);
  expect(response.config.retryState?.delaysMs).toEqual([7000]);
});
