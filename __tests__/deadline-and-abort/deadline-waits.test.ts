/** deadlineMs and the waits: no wait is scheduled that would end past the deadline. */
import type { AxiosError } from 'axios';
import { client, fake, rejection, until } from '../support/helpers';
import { closeAll, script, useNock } from '../support/nock-helpers';

const API = 'http://api.test';

useNock();
afterEach(async () => {
  jest.useRealTimers();
  await closeAll();
});

describe('deadline', () => {
  test('no wait is scheduled that would end past deadlineMs', async () => {
    fake();
    const seen = script(API, 'get', '/r', [[503, { 'Retry-After': '3' }], [503, { 'Retry-After': '3' }], 200]);
    let waits = 0;
    const { http } = client({ deadlineMs: 5000, onRetry: () => void waits++ });
    const call = rejection(http.get(`${API}/r`));
    await until(() => waits === 1);
    await jest.advanceTimersByTimeAsync(3000); // the first wait (0 s + 3 s fits in 5 s)
    await until(() => seen.length === 2);
    // At 3 s the second 3 s wait would end at 6 s, past the 5 s deadline: no wait, no third request.
    const error = (await call) as unknown as AxiosError;
    expect(seen).toHaveLength(2);
    expect(error.response?.status).toBe(503);
    expect(error.config?.retryState).toEqual({ attempts: 2, delaysMs: [3000], stopReason: 'deadline' });
  });

  test('a wait that fits the deadline is taken', async () => {
    const seen = script(API, 'get', '/r', [503, 200]);
    const { http } = client({ deadlineMs: 1000, random: () => 0.5, baseDelayMs: 10 });
    expect((await http.get(`${API}/r`)).status).toBe(200);
    expect(seen).toHaveLength(2);
  });

  test('a wait longer than the whole deadline stops at once', async () => {
    const seen = script(API, 'get', '/r', [[503, { 'Retry-After': '20' }], 200]);
    const { http } = client({ deadlineMs: 10_000 });
    const error = (await rejection(http.get(`${API}/r`))) as unknown as AxiosError;
    expect(seen).toHaveLength(1);
    expect(error.config?.retryState).toEqual({ attempts: 1, delaysMs: [], stopReason: 'deadline' });
  });
});
