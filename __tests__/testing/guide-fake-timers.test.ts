/**
 * The fake-timer example of docs/guides/testing.md, run as a test. The last test checks that the
 * guide's code block is this file's example, word for word (imports aside), so the guide cannot rot.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useNock } from '../support/nock-helpers';

useNock();

// guide:start
import axios from 'axios';
import nock from 'nock';
import { retryPlugin } from '../../lib';
import { nockRoute, settle } from '../../lib/testing';

afterEach(() => {
  jest.useRealTimers();
  nock.cleanAll();
});

test('a 503, then a 429 with Retry-After: 30, then the answer: 30 s of waits, no real waiting', async () => {
  jest.useFakeTimers();
  const route = nockRoute(nock('http://api.test'), 'GET /v1/items', [
    '503',
    { status: 429, headers: { 'Retry-After': '30' } },
    { body: { items: [] } },
  ]);
  const plugin = retryPlugin({ random: () => 0.5 });
  const http = axios.create({ baseURL: 'http://api.test' });
  plugin.install(http);

  try {
    // Runs the call to its end: real I/O first, then the fake clock to the next timer, until it settles.
    const response = await settle(http.get('/v1/items'), jest);

    expect(response.data).toEqual({ items: [] });
    expect(route.requests).toHaveLength(3);
    // Half of the first backoff's 500 ms ceiling (random 0.5), then the 30 s the server asked for.
    expect(response.config.retryState?.delaysMs).toEqual([250, 30_000]);
  } finally {
    await plugin.close();
  }
});
// guide:end

test('docs/guides/testing.md shows this example', () => {
  const own = readFileSync(__filename, 'utf8');
  const example = own.slice(own.indexOf('// guide:start\n') + 15, own.indexOf('// guide:end'));
  const guide = readFileSync(join(__dirname, '../../docs/guides/testing.md'), 'utf8');
  const block = /<!-- example:fake-timers:start -->\s*```ts\n([\s\S]*?)```\s*<!-- example:fake-timers:end -->/.exec(
    guide,
  );
  expect(block).not.toBeNull();
  const asUserWrites = example
    .replace("from '../../lib/testing'", "from 'axios-resilience/testing'")
    .replace("from '../../lib'", "from 'axios-resilience'");
  expect(block![1]).toBe(asUserWrites);
});
