/** The fake-timer pairs under vitest's fake timers (run by reliability/fake-timers-pairs in a child process). */
import { setupServer } from 'msw/node';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { EXPECTED, SEQUENCE, retryAfterDate, titleOf } from './scenario';

const msw = setupServer();
beforeAll(() => nock.disableNetConnect());
afterAll(() => {
  nock.cleanAll();
  nock.enableNetConnect();
  nock.restore();
});

describe('vitest fake timers, a new plugin per test, each mock after each other one', () => {
  SEQUENCE.forEach((kind, index) => {
    test(titleOf(index), async () => {
      expect(await retryAfterDate(kind, index, vi, msw)).toEqual(EXPECTED);
    });
  });
});
