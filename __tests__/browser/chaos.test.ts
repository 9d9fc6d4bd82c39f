/**
 * Fault injection (`chaos`) in Chromium, on axios's two browser adapters: the built app's plugin
 * injects faults into calls to the scripted server on the page's own origin. What the page saw
 * (errors, `retryState`, onRetry) is checked against what the server received, and an injected
 * network error against a real one (a port with nothing listening) in the same page.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '../../lib/policy/random';
import { storyOf } from '../support/helpers';
import { runInPage } from './browser';
import type { CallSeen } from './browser';
import { pageFixture } from './page-fixture';

const fixture = pageFixture('app');

/**
 * The first seed whose draws, at rate 0.5 on a single fault, inject on the attempts marked `I` and
 * let the ones marked `-` through (the plugin draws once per matching attempt, in order).
 */
function seedFor(pattern: string): number {
  for (let seed = 1; seed < 10_000; seed++) {
    const draw = seededRandom(seed);
    if ([...pattern].every((mark) => draw() < 0.5 === (mark === 'I'))) return seed;
  }
  throw new Error(`no seed below 10000 gives ${pattern}`);
}

/** A URL on 127.0.0.1 where nothing listens: a port taken from the OS, then closed. */
async function deadUrl(path: string): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}${path}`;
}

/**
 * The parts of a failed call a page's own error handling sees: axios's words, and the story the
 * plugin told on the stack's first line without its duration (`2 attempts; stopped: ...`): two calls never take the same ms.
 */
function errorShape(call: CallSeen | undefined): unknown {
  const { name, code, message, stackHead, status, isAxiosError, isCancel, hasCause, cause } = call!.error!;
  const { words, story } = storyOf({ message, stack: stackHead });
  const told = { words, story: story?.replace(/ over \d+ ms/, '') };
  return { ok: call!.ok, name, code, message: told, status, isAxiosError, isCancel, hasCause, cause };
}

describe.each(['xhr', 'fetch'] as const)('chaos in Chromium, over the %s adapter', (adapter) => {
  const path = (name: string): string => `/api/chaos-${adapter}/${name}`;

  test('an injected 503 before the send: nothing reaches the server, the page sees the 503 and retryState', async () => {
    const url = fixture.server.route(path('always'), [200]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: { baseDelayMs: 20, retries: 2, chaos: { faults: [{ rate: 1, status: 503 }] } },
      calls: [{ url }, { url, retry: { chaos: false } }],
    });
    const [injected, untouched] = seen.calls;
    expect(storyOf({ message: injected!.error!.message, stack: injected!.error!.stackHead })).toEqual({
      words: 'Request failed with status code 503',
      story: expect.stringMatching(/^3 attempts over \d+ ms; stopped: retries-exhausted$/),
    });
    expect(injected).toMatchObject({
      ok: false,
      error: {
        code: 'ERR_BAD_RESPONSE',
        status: 503,
        isAxiosError: true,
        injected: { fault: 0, phase: 'before', kind: 503 },
      },
      retryState: { attempts: 3, injected: 3, stopReason: 'retries-exhausted' },
    });
    expect(seen.retries.filter((r) => r.call === 0).map((r) => [r.reason, r.status, r.injected])).toEqual([
      ['503', 503, true],
      ['503', 503, true],
    ]);
    expect(seen.giveUps).toEqual([{ call: 0, stopReason: 'retries-exhausted' }]);
    // `retry: { chaos: false }` keeps the second call out of it: the only request the server saw.
    expect(untouched).toMatchObject({ ok: true, status: 200, retryState: { attempts: 1 } });
    expect(untouched!.retryState!.injected).toBeUndefined();
    expect(fixture.server.requests(path('always'))).toHaveLength(1);
  });

  test('a seeded 503 on the first attempt only: the retry is real, reaches the server and succeeds', async () => {
    const seed = seedFor('I-');
    const url = fixture.server.route(path('first-only'), [200]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: { baseDelayMs: 20, chaos: { seed, faults: [{ rate: 0.5, status: 503 }] } },
      calls: [{ url }],
    });
    expect(seen.calls[0]).toMatchObject({ ok: true, status: 200, retryState: { attempts: 2, injected: 1 } });
    expect(seen.retries.map((r) => [r.reason, r.delaySource, r.injected])).toEqual([['503', 'backoff', true]]);
    expect(fixture.server.requests(path('first-only'))).toHaveLength(1);
  });

  test('an injected ECONNRESET is the Network Error a real failure gives the page, and is retried as one', async () => {
    const seed = seedFor('II-');
    const url = fixture.server.route(path('reset'), [200]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: { baseDelayMs: 20, chaos: { seed, faults: [{ rate: 0.5, error: 'ECONNRESET' }] } },
      calls: [{ url }],
    });
    expect(seen.calls[0]).toMatchObject({ ok: true, status: 200, retryState: { attempts: 3, injected: 2 } });
    expect(seen.retries.map((r) => [r.reason, r.code, r.injected])).toEqual([
      ['ERR_NETWORK', 'ERR_NETWORK', true],
      ['ERR_NETWORK', 'ERR_NETWORK', true],
    ]);
    // Two injected attempts sent nothing; the third got through.
    expect(fixture.server.requests(path('reset'))).toHaveLength(1);
  });

  test.each(['ECONNRESET', 'ECONNREFUSED'])(
    'injected %s and a real refused connection: the same error, the same retries for a GET, the same stop for a POST',
    async (code) => {
      // Both to an origin where nothing listens (cross-origin, as a real outage of an API would be):
      // the injected calls never reach the network, the others fail for real.
      const url = await deadUrl(path(`compare-${code}`));
      const real = { chaos: false };
      const seen = await runInPage(fixture.watched.page, {
        adapter,
        plugin: {
          baseDelayMs: 20,
          retries: 1,
          budget: false,
          breaker: false,
          chaos: { faults: [{ rate: 1, error: code }] },
        },
        calls: [
          { url },
          { url, retry: real },
          { method: 'post', url, data: { n: 1 } },
          { method: 'post', url, data: { n: 1 }, retry: real },
        ],
      });
      const [injectedGet, realGet, injectedPost, realPost] = seen.calls;
      expect(realGet).toMatchObject({ ok: false, error: { code: 'ERR_NETWORK', isAxiosError: true } });
      expect(errorShape(injectedGet)).toEqual(errorShape(realGet));
      expect(errorShape(injectedPost)).toEqual(errorShape(realPost));
      expect(injectedGet!.error!.injected).toEqual({ fault: 0, phase: 'before', kind: code });
      expect(realGet!.error!.injected).toBeUndefined();
      // The GETs: retried once each, for the same reason; the POSTs: stopped the same way.
      expect(injectedGet!.retryState).toMatchObject({ attempts: 2, injected: 2, stopReason: 'retries-exhausted' });
      expect(realGet!.retryState).toMatchObject({ attempts: 2, stopReason: 'retries-exhausted' });
      expect(injectedPost!.retryState).toMatchObject({
        attempts: realPost!.retryState!.attempts,
        stopReason: realPost!.retryState!.stopReason,
      });
      expect(seen.retries.map((r) => [r.call, r.reason, r.injected])).toEqual([
        [0, 'ERR_NETWORK', true],
        [1, 'ERR_NETWORK', false],
        ...(realPost!.retryState!.attempts > 1
          ? [
              [2, 'ERR_NETWORK', true],
              [3, 'ERR_NETWORK', false],
            ]
          : []),
      ]);
    },
  );

  test("phase 'after': a POST is processed, its answer dropped for a 504, and the retry carries the same key", async () => {
    const seed = seedFor('I-');
    const url = fixture.server.route(path('payments'), [{ commit: 201 }]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      plugin: {
        baseDelayMs: 20,
        idempotencyKey: { serverDedupes: true },
        chaos: { seed, faults: [{ rate: 0.5, status: 504, phase: 'after', match: { method: 'POST' } }] },
      },
      calls: [{ method: 'post', url, data: { amount: 4200 } }],
    });
    const [call] = seen.calls;
    const key = call!.retryState!.idempotencyKey!;
    expect(typeof key).toBe('string');
    // The server's 201 was dropped for the injected 504; the retry got the stored payment back.
    expect(call).toMatchObject({ ok: true, status: 200, replayed: true, retryState: { attempts: 2, injected: 1 } });
    expect(seen.retries.map((r) => [r.reason, r.status, r.injected])).toEqual([['504', 504, true]]);
    const sent = fixture.server.requests(path('payments'));
    expect(sent.map((r) => [r.method, r.headers['idempotency-key']])).toEqual([
      ['POST', key],
      ['POST', key],
    ]);
    expect([...fixture.server.payments(path('payments')).keys()]).toEqual([key]);
  });

  test('an added latency of 50 ms: the call still succeeds and the server saw it once', async () => {
    const url = fixture.server.route(path('slow'), [200]);
    const seen = await runInPage(fixture.watched.page, {
      adapter,
      timeout: 10_000,
      plugin: { chaos: { faults: [{ rate: 1, latencyMs: 50 }] } },
      calls: [{ url }],
    });
    // A latency that did not reach the timeout changed no outcome: not counted as injected.
    expect(seen.calls[0]).toMatchObject({ ok: true, status: 200, retryState: { attempts: 1, injected: 0 } });
    expect(seen.calls[0]!.elapsedMs).toBeGreaterThanOrEqual(45);
    expect(seen.retries).toEqual([]);
    expect(fixture.server.requests(path('slow'))).toHaveLength(1);
  });
});
