/** `isRetryableFailure` exposes the decision table as a function. Real node:http server on 127.0.0.1. */
import { isRetryableFailure } from '../../lib';
import { rejection } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { serverPerTest, statuses } from '../support/test-server';

const t = serverPerTest();

const setup = setupOn(t);

describe('isRetryableFailure: the table as a function', () => {
  test('says what the table would decide, and why', async () => {
    t.handler = statuses(503);
    const { http } = setup({ retries: 0 });
    const getError = await rejection(http.get(`${t.server.url}/r`));
    expect(isRetryableFailure(getError)).toEqual({ retry: true, reason: '503' });
    const postError = await rejection(http.post(`${t.server.url}/r`, {}, { retry: { idempotencyKey: false } }));
    expect(isRetryableFailure(postError)).toEqual({ retry: false, reason: '503', stopReason: 'non-idempotent' });
    expect(isRetryableFailure(postError, { keyed: true })).toEqual({ retry: true, reason: '503' });
    expect(isRetryableFailure(getError, { statusCodes: [500] })).toMatchObject({ retry: false, reason: '503' });
    expect(() => isRetryableFailure(getError, { statusCodes: ['x'] as never })).toThrow(/statusCodes/);
  });
});
