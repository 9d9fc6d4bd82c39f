/**
 * GitHub's quotas per resource, through real axios and a real node:http server that keeps them as
 * GitHub documents: every answer says `X-RateLimit-Limit`, `-Remaining`, `-Reset` (epoch seconds) and
 * `-Resource` (`core`, `search`, `graphql`); a spent one answers 403 until its reset ("Continuing to
 * make requests while you are rate limited may result in the banning of your integration"). What is
 * checked: the requests the server received, the errors thrown, and what `plugin.limiter(url)` says.
 */
import type { AxiosError } from 'axios';
import { client, closePlugins, rejection } from '../support/helpers';
import { serverPerTest } from '../support/test-server';

const t = serverPerTest();
afterEach(closePlugins);

const HOUR_S = 3600;

type Resource = 'core' | 'search' | 'graphql';

/** The resource a path counts against, as GitHub's are split. */
const resourceOf = (url: string): Resource =>
  url.startsWith('/search/') ? 'search' : url.startsWith('/graphql') ? 'graphql' : 'core';

/** A GitHub-like server: each resource's requests left, all resetting in an hour. */
function github(left: Record<Resource, number>): {
  resetAt: number;
  left: Record<Resource, number>;
  sent: (path: string) => number;
} {
  const resetS = Math.ceil(Date.now() / 1000) + HOUR_S;
  const limits: Record<Resource, number> = { core: 5000, search: 30, graphql: 5000 };
  t.handler = (req, res) => {
    const resource = resourceOf(req.url);
    const ok = left[resource] > 0;
    if (ok) left[resource]--;
    res
      .writeHead(ok ? 200 : 403, {
        'x-ratelimit-limit': String(limits[resource]),
        'x-ratelimit-remaining': String(left[resource]),
        'x-ratelimit-reset': String(resetS),
        'x-ratelimit-resource': resource,
      })
      .end(ok ? '{}' : '{"message":"API rate limit exceeded"}');
  };
  return { resetAt: resetS * 1000, left, sent: (path) => t.server.requests.filter((r) => r.url === path).length };
}

const stateOf = (error: unknown) => (error as AxiosError).config!.retryState!;

async function refusedUnsent(call: Promise<unknown>, resetAt: number): Promise<void> {
  const error = (await rejection(call)) as unknown as AxiosError;
  expect(error.code).toBe('ERR_RATE_LIMITED');
  expect(stateOf(error)).toMatchObject({ attempts: 0, stopReason: 'rate-limited' });
  // The reset, read against the plugin's clock (real here): within a few ms of it.
  expect(Math.abs(stateOf(error).retryAt! - resetAt)).toBeLessThan(50);
}

describe('a spent quota and a route not yet seen (issue 48, item 4)', () => {
  test.each(['a success that spent it (remaining 0)', 'a 403'])(
    'core spent by %s, its reset an hour away: a core route not yet seen is held, nothing sent; a route seen on search still goes',
    async (how) => {
      const server = github({ core: 3, search: 30, graphql: 5000 });
      const { http } = client();
      const url = t.server.url;
      // The app's earlier calls: two core routes and a search route answered.
      await http.get(`${url}/user`);
      await http.get(`${url}/repos/o/r`);
      await http.get(`${url}/search/issues?q=bug`);
      if (how === 'a 403') {
        // Spent elsewhere (another process on the same token): the next core call is refused.
        server.left.core = 0;
        expect(stateOf(await rejection(http.get(`${url}/orgs/o`))).stopReason).toBe('rate-limited');
      } else {
        expect((await http.get(`${url}/orgs/o`)).headers['x-ratelimit-remaining']).toBe('0');
      }

      await refusedUnsent(http.get(`${url}/repos/o/r/issues`), server.resetAt);
      await refusedUnsent(http.post(`${url}/repos/o/r/pulls`, { title: 'x' }), server.resetAt);
      expect(server.sent('/repos/o/r/issues')).toBe(0);
      expect(server.sent('/repos/o/r/pulls')).toBe(0);
      expect(t.server.requests).toHaveLength(4);
      expect((await http.get(`${url}/search/issues?q=docs`)).status).toBe(200);
    },
  );

  test.each<[string, Record<Resource, number>, string]>([
    ['search', { core: 5000, search: 1, graphql: 5000 }, '/search/issues?q=spent'],
    ['graphql', { core: 5000, search: 30, graphql: 1 }, '/graphql'],
  ])(
    '%s spent, its reset an hour away: routes not yet seen go out (they count against core, most routes named)',
    async (resource, left, spending) => {
      const server = github(left);
      const { http } = client();
      const url = t.server.url;
      await http.get(`${url}/user`);
      await http.get(`${url}/repos/o/r`);
      const send = (path: string) =>
        path === '/graphql' ? http.post(`${url}${path}`, '{}') : http.get(`${url}${path}`);
      await send(spending);
      expect(stateOf(await rejection(send(spending))).stopReason).toBe('rate-limited');

      expect((await http.get(`${url}/repos/o/r/issues`)).status).toBe(200);
      expect((await http.get(`${url}/orgs/o`)).status).toBe(200);
      expect(server.sent('/repos/o/r/issues')).toBe(1);
      expect(resource).toBe(resourceOf(spending.split('?')[0]!));
    },
  );

  test('one route seen is too few to guess from: after a single search route, a core route not yet seen goes out while search is spent', async () => {
    const server = github({ core: 5000, search: 0, graphql: 5000 });
    const { http } = client();
    const url = t.server.url;
    for (let i = 0; i < 3; i++) await rejection(http.get(`${url}/search/issues?q=${i}`));
    expect((await http.get(`${url}/repos/o/r/issues/1`)).status).toBe(200);
    expect(server.sent('/repos/o/r/issues/1')).toBe(1);
  });
});

describe('what the docs promise (issue 48, item 9)', () => {
  test('search spent: routes whose earlier 200s named search are held without being sent again', async () => {
    const server = github({ core: 5000, search: 30, graphql: 5000 });
    const { http } = client();
    const url = t.server.url;
    await http.get(`${url}/search/code?q=a`);
    await http.get(`${url}/search/users?q=a`);
    // Spent elsewhere (another process on the same token): the next search is refused.
    server.left.search = 0;
    await rejection(http.get(`${url}/search/issues?q=a`));

    await refusedUnsent(http.get(`${url}/search/code?q=b`), server.resetAt);
    await refusedUnsent(http.get(`${url}/search/users?q=b`), server.resetAt);
    expect(t.server.requests.map((r) => r.url)).toEqual([
      '/search/code?q=a',
      '/search/users?q=a',
      '/search/issues?q=a',
    ]);
  });

  test('plugin.limiter(url) says what paces that URL, or nothing: not another route’s limiter', async () => {
    t.handler = (req, res) =>
      req.url === '/a' ? res.writeHead(429, { 'retry-after': '20' }).end() : res.writeHead(200).end('ok');
    const { http, plugin } = client({ retries: 0 });
    await rejection(http.get(`${t.server.url}/a`));
    expect(plugin.limiter(`${t.server.url}/a`)).toMatchObject({ state: 'on', scope: 'GET /a' });
    await http.get(`${t.server.url}/b`);
    expect(plugin.limiter(`${t.server.url}/b`)).toBeUndefined();
    expect(plugin.limiter(t.server.url)).toBeUndefined();
  });

  test('plugin.limiter(url) for a core URL while search is held: nothing; for a search URL and an unseen core URL while core is held: the quota that holds it', async () => {
    const server = github({ core: 3, search: 1, graphql: 5000 });
    const { http, plugin } = client();
    const url = t.server.url;
    await http.get(`${url}/user`);
    await http.get(`${url}/repos/o/r`);
    await http.get(`${url}/search/code?q=a`);
    await rejection(http.get(`${url}/search/code?q=b`));
    expect(plugin.limiter(`${url}/search/code?q=c`)).toMatchObject({ state: 'on', scope: 'resource search' });
    expect(plugin.limiter(`${url}/search/code?q=c`)!.pausedUntil).toBeGreaterThanOrEqual(server.resetAt);
    expect(plugin.limiter(`${url}/user`)).toBeUndefined();
    expect(plugin.limiter(`${url}/repos/o/r/issues`)).toBeUndefined();

    await http.get(`${url}/orgs/o`);
    expect(plugin.limiter(`${url}/repos/o/r/issues`)).toMatchObject({ state: 'on', scope: 'resource core' });
    expect(plugin.limiter(`${url}/user`)).toMatchObject({ scope: 'resource core' });
  });
});
