/**
 * The `chaos` option: a wrong fault is a TypeError naming the field, at retryPlugin() time; chaos is
 * off unless given, `enabled: false` turns it off, and `retry: { chaos: false }` turns it off for one
 * call. Real node:http server on 127.0.0.1.
 */
import type { AxiosError } from 'axios';
import { retryPlugin } from '../../lib';
import type { RetryPluginOptions } from '../../lib';
import { rejection } from '../support/helpers';
import { setupOn } from '../support/plugin-setup';
import { serverPerTest } from '../support/test-server';

const t = serverPerTest();
const setup = setupOn(t, 'http');
const always503: RetryPluginOptions['chaos'] = { faults: [{ rate: 1, status: 503 }] };

describe('bad input: a TypeError naming the field, what was given and what is allowed', () => {
  test.each([
    [{ faults: [{ rate: 1.5, status: 503 }] }, /chaos\.faults\[0\]\.rate must be a number from 0 to 1, got 1\.5/],
    [{ faults: [{ rate: -0.1, status: 503 }] }, /chaos\.faults\[0\]\.rate .*got -0\.1/],
    [{ faults: [{ rate: NaN, status: 503 }] }, /chaos\.faults\[0\]\.rate .*got NaN/],
    [{ faults: [{ status: 503 }] }, /chaos\.faults\[0\]\.rate .*got undefined/],
    [{ faults: [{ rate: 0.5 }] }, /chaos\.faults\[0\] must have exactly one of status, error or latencyMs, got none/],
    [{ faults: [{ rate: 0.5, status: 503, error: 'ECONNRESET' }] }, /exactly one .*got status and error/],
    [{ faults: [{ rate: 0.5, error: 'ECONNRESET', latencyMs: 5 }] }, /exactly one .*got error and latencyMs/],
    [
      { faults: [{ rate: 0.5, status: 200 }] },
      /chaos\.faults\[0\]\.status must be a failure status \(400-599\), got 200/,
    ],
    [{ faults: [{ rate: 0.5, status: 399 }] }, /status must be a failure status .*got 399/],
    [{ faults: [{ rate: 0.5, status: 600 }] }, /status must be a failure status .*got 600/],
    [{ faults: [{ rate: 0.5, status: '503' }] }, /status must be a failure status .*got the string "503"/],
    [
      { faults: [{ rate: 0.5, error: 'EWHATEVER' }] },
      /chaos\.faults\[0\]\.error must be one of ECONNRESET, .*got "EWHATEVER"/,
    ],
    [
      { faults: [{ rate: 0.5, latencyMs: -1 }] },
      /chaos\.faults\[0\]\.latencyMs must be ms from 0 to 2147483647, got -1/,
    ],
    [{ faults: [{ rate: 0.5, latencyMs: Infinity }] }, /latencyMs must be ms .*got Infinity/],
    [
      { faults: [{ rate: 0.5, error: 'ECONNRESET', headers: { a: 'b' } }] },
      /chaos\.faults\[0\]\.headers is allowed only with status/,
    ],
    [{ faults: [{ rate: 0.5, latencyMs: 5, body: 'x' }] }, /chaos\.faults\[0\]\.body is allowed only with status/],
    [
      { faults: [{ rate: 0.5, status: 503, headers: { 'Retry-After': 5 } }] },
      /headers must be an object of header strings/,
    ],
    [
      { faults: [{ rate: 0.5, status: 503, phase: 'during' }] },
      /chaos\.faults\[0\]\.phase must be 'before' or 'after', got "during"/,
    ],
    [
      { faults: [{ rate: 0.5, status: 503, match: { method: 5 } }] },
      /chaos\.faults\[0\]\.match\.method must be a method name/,
    ],
    [{ faults: [{ rate: 0.5, status: 503, match: { method: [] } }] }, /match\.method must be .*got an empty array/],
    [
      { faults: [{ rate: 0.5, status: 503, match: { origin: 'api.example.com' } }] },
      /match\.origin must be an absolute origin .*got "api\.example\.com"/,
    ],
    [
      { faults: [{ rate: 0.5, status: 503, match: { path: 'v1/items' } }] },
      /match\.path must be a path starting with '\/' or a RegExp, got "v1\/items"/,
    ],
    [
      { faults: [{ rate: 0.5, status: 503, match: { host: 'x' } }] },
      /chaos\.faults\[0\]\.match\.host is not a known option/,
    ],
    [{ faults: [{ rate: 0.5, status: 503, when: 'always' }] }, /chaos\.faults\[0\]\.when is not a known option/],
    [{ faults: [{ rate: 1, status: 503 }, 'oops'] }, /chaos\.faults\[1\] must be an object/],
    [{ faults: { rate: 1, status: 503 } }, /chaos\.faults must be an array of faults, got /],
    [{ faults: [], seed: 1.5 }, /chaos\.seed must be a whole number, got 1\.5/],
    [{ faults: [], enabled: 'yes' }, /chaos\.enabled must be true or false, got the string "yes"/],
    [{ faults: [], rate: 0.1 }, /chaos\.rate is not a known option/],
    [[{ rate: 1, status: 503 }], /chaos must be an object such as \{ faults: \[\.\.\.\] \}, got an array/],
  ])('%j', (chaos, message) => {
    expect(() => retryPlugin({ chaos } as unknown as RetryPluginOptions)).toThrow(TypeError);
    expect(() => retryPlugin({ chaos } as unknown as RetryPluginOptions)).toThrow(message);
  });

  test('a fault set to off (enabled: false) is still checked', () => {
    const chaos = { enabled: false, faults: [{ rate: 2, status: 503 }] };
    expect(() => retryPlugin({ chaos })).toThrow(/chaos\.faults\[0\]\.rate/);
  });

  test('per request, chaos can only be turned off: anything else fails the call with a TypeError', async () => {
    const { http } = setup({ chaos: always503 });
    const error = await rejection(
      http.get(`${t.server.url}/r`, { retry: { chaos: { faults: [] } as unknown as false } }),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/config\.retry\.chaos can only be false per request/);
    expect(t.server.requests).toHaveLength(0);
  });
});

describe('off unless given', () => {
  test('without chaos a call is untouched: the server answers, retryState has no injected count', async () => {
    const { http } = setup();
    const response = await http.get(`${t.server.url}/r`);
    expect(response.status).toBe(200);
    expect(response.config.retryState).toEqual({ attempts: 1, delaysMs: [] });
    expect(t.server.requests).toHaveLength(1);
  });

  test('enabled: false injects nothing', async () => {
    const { http } = setup({ chaos: { ...always503, enabled: false } });
    const response = await http.get(`${t.server.url}/r`);
    expect(response.status).toBe(200);
    expect(response.config.retryState).toEqual({ attempts: 1, delaysMs: [] });
    expect(t.server.requests).toHaveLength(1);
  });

  test('retry: { chaos: false } turns it off for that call only', async () => {
    const { http } = setup({ chaos: always503, retries: 0 });
    const spared = await http.get(`${t.server.url}/r`, { retry: { chaos: false } });
    expect(spared.status).toBe(200);
    expect(spared.config.retryState?.injected).toBeUndefined();
    const hit = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
    expect(hit.response?.status).toBe(503);
    expect(hit.config?.retryState?.injected).toBe(1);
    expect(t.server.requests).toHaveLength(1);
  });

  test('a call with chaos on that got no fault says injected: 0', async () => {
    const { http } = setup({ chaos: { faults: [{ rate: 0, status: 503 }] } });
    const response = await http.get(`${t.server.url}/r`);
    expect(response.config.retryState).toEqual({ attempts: 1, delaysMs: [], injected: 0 });
  });
});
