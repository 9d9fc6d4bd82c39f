/**
 * A limiter that refills continuously (a token bucket, a sliding window) is paced at its rate; a
 * fixed window is held to its reset (contract release 6). Real axios and a real node:http server on
 * 127.0.0.1, fake timers: the server's bucket reads the same fake clock, so what it grants depends on
 * the waits the plugin chose, not on how fast the machine is.
 */
import type { AxiosError } from 'axios';
import { client, closePlugins, fake, realTick, rejection, until } from '../support/helpers';
import { serverPerTest } from '../support/test-server';
import type { Handler } from '../support/test-server';

const t = serverPerTest();
afterEach(async () => {
  await closePlugins();
  jest.useRealTimers();
});

/** An epoch second plus 200 ms: a next-second reset is 800 ms away. */
const START = 1_800_000_000_000 + 200;

/** `X-RateLimit-*` of a spent quota resetting at the next second, as a bucket's gateway sends them on a refusal. */
const spentUntilNextSecond = (limit: number): Record<string, string> => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': '0',
  'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 1),
});

/**
 * A token bucket of `rate` a second (burst `burst`) on the fake clock that says nothing on its
 * successes and refuses with `refusal()`'s headers; counts the successes it sent per second.
 */
function bucket(rate: number, burst: number, refusal: () => Record<string, string>) {
  let tokens = burst;
  let at = Date.now();
  const served = new Map<number, number>();
  const handler: Handler = (_req, res) => {
    const now = Date.now();
    tokens = Math.min(burst, tokens + ((now - at) * rate) / 1000);
    at = now;
    if (tokens < 1) return void res.writeHead(429, refusal()).end();
    tokens -= 1;
    const second = Math.floor((now - START) / 1000);
    served.set(second, (served.get(second) ?? 0) + 1);
    res.writeHead(200).end('ok');
  };
  return { handler, served };
}

/** `callers` closed-loop callers of `url` for `ms` of fake time, real I/O run between small steps. */
async function closedLoop(
  http: ReturnType<typeof client>['http'],
  url: string,
  callers: number,
  ms: number,
  beforeClose?: () => void,
) {
  const end = Date.now() + ms;
  let failed = 0;
  const loop = async (): Promise<void> => {
    while (Date.now() < end) {
      // A call that fails at once gives the event loop a turn: the clock moves only between steps.
      await http.get(url).catch(async () => {
        failed++;
        await realTick();
      });
    }
  };
  const loops = Array.from({ length: callers }, loop);
  while (Date.now() < end) {
    await jest.advanceTimersByTimeAsync(5);
    for (let i = 0; i < 4; i++) await realTick();
  }
  beforeClose?.();
  await closePlugins();
  await Promise.all(loops);
  return { failed };
}

test.each([
  ['X-RateLimit-* with a next-second reset', () => spentUntilNextSecond(10)],
  ['RateLimit r=0;t=1', () => ({ ratelimit: '"default";r=0;t=1' })],
])(
  'a bucket that speaks only on its refusals (%s) is paced at its rate, not waited out to each reset',
  async (_name, refusal) => {
    fake(START);
    const server = bucket(10, 2, refusal);
    t.handler = server.handler;
    const { http } = client({ random: Math.random, retries: 10 });
    await closedLoop(http, `${t.server.url}/r`, 6, 4000);
    // Seconds 1 to 3, past the first refusals: held to each reset, the bucket granted its burst and
    // a token or two a second (9 in the three seconds on the code before); paced, about its rate.
    const steady = [1, 2, 3].map((s) => server.served.get(s) ?? 0);
    expect(steady.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(27);
  },
);

/** Runs real I/O and fake time in 5 ms steps until `done()` holds (bounded: 5 s of fake time). */
async function drive(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) {
    for (let j = 0; j < 4; j++) await realTick();
    if (!done()) await jest.advanceTimersByTimeAsync(5);
  }
}

/** Settles `call` by running real I/O and fake time. */
async function settled<T>(call: Promise<T>): Promise<T> {
  let over = false;
  call.then(
    () => (over = true),
    () => (over = true),
  );
  await drive(() => over);
  return call;
}

test('after its silent successes, a refusal with a next-second reset paces the route: the next call goes before the reset', async () => {
  fake(START);
  const script: Array<'refuse' | 'ok'> = ['refuse', 'ok', 'refuse'];
  t.handler = (_req, res, index) =>
    script[index] === 'refuse' ? res.writeHead(429, spentUntilNextSecond(100)).end() : res.writeHead(200).end('ok');
  const { http, plugin } = client();
  // Engages the route; not yet known to be a bucket, so held to the reset (800 ms), the refused call with it.
  const first = http.get(`${t.server.url}/r`);
  await until(() => t.server.requests.length === 1);
  expect(plugin.limiter(`${t.server.url}/r`)!.pausedUntil).toBe(START + 800);
  expect((await settled(first)).status).toBe(200);
  // Its success said nothing of a quota: a bucket. Its next refusal holds no other call.
  const refusedAt = Date.now();
  const second = rejection(http.get(`${t.server.url}/r`, { retry: { retries: 0 } }));
  await drive(() => t.server.requests.length === 3);
  expect(((await settled(second)) as unknown as AxiosError).response?.status).toBe(429);
  expect(plugin.limiter(`${t.server.url}/r`)!.pausedUntil).toBe(0);
  const third = http.get(`${t.server.url}/r`);
  await drive(() => t.server.requests.length === 4);
  // Sent at the route's pace, long before the next second (on the code before: held to it).
  expect(Date.now()).toBeLessThan(Math.ceil((refusedAt + 1) / 1000) * 1000 - 500);
  expect((await settled(third)).status).toBe(200);
});

test('a truthful fixed window, whose successes tell a remaining count that only falls, is still held to its reset', async () => {
  fake(START);
  const reset = String(Math.floor(START / 1000) + 1);
  const left = ['2', '1', '0'];
  t.handler = (_req, res, index) =>
    res
      .writeHead(200, {
        'x-ratelimit-limit': '3',
        'x-ratelimit-remaining': left[index] ?? '2',
        'x-ratelimit-reset': reset,
      })
      .end('ok');
  const { http, plugin } = client();
  for (let i = 0; i < 3; i++) await settled(http.get(`${t.server.url}/r`));
  const held = http.get(`${t.server.url}/r`);
  await until(() => plugin.limiter(`${t.server.url}/r`)?.queued === 1);
  expect(plugin.limiter(`${t.server.url}/r`)!.pausedUntil).toBe(START + 800);
  // Nothing goes before the reset, then the held call does.
  await drive(() => t.server.requests.length === 4);
  expect(Date.now()).toBeGreaterThanOrEqual(START + 800);
  expect((await settled(held)).status).toBe(200);
});

test('a fixed window whose resets show its length is paced at its own rate (size per length), not spent in a burst at each reset', async () => {
  fake(START);
  // 10 requests a second, every answer stating the count and the window's epoch-second reset, as GitHub's do.
  const arrivals: number[] = [];
  let window = -1;
  let left = 0;
  const refused: number[] = [];
  t.handler = (_req, res) => {
    const now = Date.now();
    arrivals.push(now);
    if (Math.floor(now / 1000) !== window) [window, left] = [Math.floor(now / 1000), 10];
    const ok = left > 0;
    if (ok) left--;
    else refused.push(now);
    const headers = {
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': String(left),
      'x-ratelimit-reset': String(window + 1),
    };
    res.writeHead(ok ? 200 : 429, headers).end(ok ? 'ok' : '');
  };
  const { http, plugin } = client({ random: Math.random, retries: 10 });
  await closedLoop(http, `${t.server.url}/r`, 6, 4000, () => {
    // Read while the limiter is on (closing the plugin relaxes it).
    expect(plugin.limiter(`${t.server.url}/r`)).toMatchObject({ state: 'on', ratePerSecond: 10 * 0.97 });
  });
  // Refused only in the first burst, before the plugin had heard the window (5 of 15 sent at once).
  expect(refused.filter((at) => at >= START + 1000)).toEqual([]);
  // Seconds 2 and 3, once two windows showed their length: about a tenth of a second apart. Spent in a
  // burst at each reset and held to the next (the code before), 8 of them went in its first 100 ms.
  for (const second of [2, 3]) {
    const from = Math.floor(START / 1000) * 1000 + second * 1000;
    const sent = arrivals.filter((at) => at >= from && at < from + 1000);
    expect(sent.length).toBeGreaterThanOrEqual(9);
    expect(sent.filter((at) => at < from + 100).length).toBeLessThanOrEqual(2);
  }
});

test('a remaining count that grew before its reset shows a refilling limiter: its spent quota with Retry-After: 1 paces, not holds', async () => {
  fake(START);
  // A per-minute limit a sliding window reports on every answer: 5, 3, then 6 left, the reset 60 s away.
  const reset = String(Math.floor(START / 1000) + 60);
  const told = ['5', '3', '6'];
  t.handler = (_req, res, index) => {
    if (index === 0) return void res.writeHead(429, { 'retry-after': '1' }).end();
    if (index === 4) {
      return void res
        .writeHead(429, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset, 'retry-after': '1' })
        .end();
    }
    res.writeHead(200, { 'x-ratelimit-remaining': told[index - 1] ?? '4', 'x-ratelimit-reset': reset }).end('ok');
  };
  const { http, plugin } = client();
  // The first refusal engages the route (a bucket's Retry-After: 1 paces it); its retry is told 5 left.
  await settled(http.get(`${t.server.url}/r`));
  for (let i = 0; i < 2; i++) await settled(http.get(`${t.server.url}/r`));
  const refused = http.get(`${t.server.url}/r`);
  await drive(() => t.server.requests.length === 5);
  // The quota said spent for a second: a fixed window's would hold the route until then.
  expect(plugin.limiter(`${t.server.url}/r`)).toMatchObject({ state: 'on', pausedUntil: 0 });
  expect((await settled(refused)).status).toBe(200);
});

describe('a refusal of a paced scope is load it absorbs: bounded by the deadline, the queue and close(), not by retries', () => {
  /** 429 `Retry-After: 1` to the first request (the route is then paced); `victim`'s requests refused bare `refusals` times; the rest 200. */
  const loaded =
    (refusals: number): Handler =>
    (req, res, index) => {
      if (index === 0) return void res.writeHead(429, { 'retry-after': '1' }).end();
      const victim = req.headers['x-victim'] !== undefined;
      const refused = t.server.requests.filter((r) => r.headers['x-victim'] !== undefined).length;
      if (victim && refused <= refusals) return void res.writeHead(429).end();
      res.writeHead(200).end('ok');
    };

  /** Engages the route (a bucket's `Retry-After: 1`), and keeps it served: a success every 50 ms until `stop()`. */
  async function pacedAndServed(http: ReturnType<typeof client>['http']) {
    await settled(http.get(`${t.server.url}/r`));
    let serving = true;
    const others = (async () => {
      while (serving) {
        await http.get(`${t.server.url}/r`).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    return async () => {
      serving = false;
      await settled(others);
    };
  }

  test('a call refused five times with retries: 2, while its paced route serves others, succeeds on its sixth attempt', async () => {
    fake(START);
    t.handler = loaded(5);
    const { http } = client({ retries: 2 });
    const stop = await pacedAndServed(http);
    const response = await settled(http.get(`${t.server.url}/r`, { headers: { 'x-victim': '1' } }));
    await stop();
    expect(response.status).toBe(200);
    expect(t.server.requests.filter((r) => r.headers['x-victim'] !== undefined)).toHaveLength(6);
    expect(response.config.retryState).toMatchObject({ attempts: 6 });
  });

  test('…and still ends at its deadline', async () => {
    fake(START);
    t.handler = loaded(1000);
    const { http } = client({ retries: 2 });
    const stop = await pacedAndServed(http);
    const error = await settled(
      rejection(http.get(`${t.server.url}/r`, { headers: { 'x-victim': '1' }, retry: { deadlineMs: 1500 } })),
    );
    await stop();
    expect((error as unknown as AxiosError).config!.retryState!.stopReason).toMatch(/^(deadline|rate-limited)$/);
    expect(Date.now() - START).toBeLessThan(1000 + 1500 + 500);
  });

  test('a route refusing every call is no load to absorb: retries bounds it', async () => {
    fake(START);
    t.handler = (_req, res, index) => res.writeHead(429, index === 0 ? { 'retry-after': '1' } : {}).end();
    const { http } = client({ retries: 2 });
    const error = await settled(rejection(http.get(`${t.server.url}/r`)));
    // The first refusal paced the route; its retries were refused too, and none of the route's calls got through.
    const later = await settled(rejection(http.get(`${t.server.url}/r`)));
    expect((error as unknown as AxiosError).config!.retryState!.stopReason).toBe('retries-exhausted');
    expect((later as unknown as AxiosError).config!.retryState).toMatchObject({
      attempts: 3,
      stopReason: 'retries-exhausted',
    });
  });

  test('a call to a route that is not paced keeps retries as its bound', async () => {
    fake(START);
    // Bare refusals of one call while the route serves others: too few to show the rate is the cause.
    t.handler = (req, res) =>
      req.headers['x-victim'] !== undefined ? res.writeHead(429).end() : res.writeHead(200).end('ok');
    const { http, plugin } = client({ retries: 2 });
    for (let i = 0; i < 20; i++) await settled(http.get(`${t.server.url}/r`));
    const error = await settled(rejection(http.get(`${t.server.url}/r`, { headers: { 'x-victim': '1' } })));
    expect((error as unknown as AxiosError).config!.retryState).toMatchObject({
      attempts: 3,
      stopReason: 'retries-exhausted',
    });
    expect(plugin.limiter(`${t.server.url}/r`)).toBeUndefined();
  });
});
