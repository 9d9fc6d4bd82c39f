/**
 * A failure holds back only the calls it speaks for: a route failing while its siblings succeed is
 * held alone, by a breaker of its own; an origin down on every route still fails fast as one. Real
 * node:http server on 127.0.0.1 answering by path, calls made one after another (their order is the
 * test's, not the sockets').
 */
import { CircuitOpenError } from '../../lib';
import type { CircuitStateChange } from '../../lib';
import { client, closePlugins, rejection } from '../support/helpers';
import { serverPerTest, until } from '../support/test-server';

const t = serverPerTest();
afterEach(closePlugins);

const BREAKER = { volumeThreshold: 5, errorThresholdPercentage: 50, resetTimeout: 60_000 };

test('one route failing while its siblings succeed opens a breaker of its own, and no other route is refused', async () => {
  t.handler = (req, res) => (req.url.startsWith('/reports') ? res.writeHead(503).end() : res.writeHead(200).end('ok'));
  const changes: CircuitStateChange[] = [];
  const { http, plugin } = client({
    retries: 0,
    breaker: BREAKER,
    onCircuitStateChange: (change) => void changes.push(change),
  });
  const outcomes: string[] = [];
  // Three broken calls for every two healthy ones, 60 % of the traffic failing.
  for (let i = 0; i < 40; i++) {
    const path = i % 5 < 3 ? `/reports/${i}` : `/users/${i}`;
    outcomes.push(
      await http.get(`${t.server.url}${path}`).then(
        () => 'ok',
        (error: unknown) => (error instanceof CircuitOpenError ? 'open' : 'failed'),
      ),
    );
  }
  const healthy = outcomes.filter((_, i) => i % 5 >= 3);
  expect(healthy).toEqual(Array(16).fill('ok'));
  const broken = outcomes.filter((_, i) => i % 5 < 3);
  expect(broken.filter((o) => o === 'open').length).toBeGreaterThanOrEqual(15);
  expect(plugin.breaker(`${t.server.url}/reports/7`)).toMatchObject({ opened: true });
  expect(plugin.breaker(t.server.url)).toMatchObject({ closed: true });
  expect(changes).toEqual([{ origin: t.server.url, scope: 'GET /reports/:', state: 'open' }]);
});

test("calls of a broken route that began failing between their siblings' successes, and give up together, hold that route alone", async () => {
  // Each broken call fails once between two healthy successes; the server holds every retry until
  // all sixteen are there, then fails them at one moment (as when a spent budget ends many calls at
  // once). Nothing depends on how fast the machine is: the order is the test's.
  const held: Array<{ writeHead(status: number): { end(): void } }> = [];
  const seen = new Set<string>();
  t.handler = (req, res) => {
    if (!req.url.startsWith('/reports')) return res.writeHead(200).end('ok');
    if (seen.has(req.url)) return void held.push(res);
    seen.add(req.url);
    res.writeHead(503).end();
  };
  const retried: number[] = [];
  const { http, plugin } = client({ breaker: BREAKER, onRetry: (e) => void retried.push(e.attempt) });
  const broken: Array<Promise<unknown>> = [];
  for (let i = 0; i < 16; i++) {
    if (i < 12) await http.get(`${t.server.url}/users/${i}`);
    broken.push(rejection(http.get(`${t.server.url}/reports/${i}`, { retry: { retries: 1, delay: () => 0 } })));
    await until(() => retried.length === i + 1);
  }
  await until(() => held.length === 16);
  for (const res of held) res.writeHead(503).end();
  await Promise.all(broken);
  expect(t.server.requests.filter((r) => r.url.startsWith('/reports'))).toHaveLength(32);
  for (let i = 0; i < 20; i++) expect((await http.get(`${t.server.url}/orders/${i}`)).status).toBe(200);
  expect(plugin.breaker(t.server.url)).toMatchObject({ closed: true });
  expect(plugin.breaker(`${t.server.url}/reports/1`)).toMatchObject({ opened: true });
});

test('an origin down on every route opens its own breaker after volumeThreshold calls: then every route is refused', async () => {
  t.handler = (_req, res) => res.writeHead(503).end();
  const { http, plugin } = client({ retries: 0, breaker: BREAKER });
  for (let i = 0; i < 5; i++) await rejection(http.get(`${t.server.url}/${['a', 'b', 'c'][i % 3]}/${i}`));
  expect(plugin.breaker(t.server.url)).toMatchObject({ opened: true });
  for (const path of ['/a/9', '/b/9', '/never-called']) {
    expect(await rejection(http.get(`${t.server.url}${path}`))).toBeInstanceOf(CircuitOpenError);
  }
  expect(t.server.requests).toHaveLength(5);
});

test('breaker.key still chooses the breaker: no route of its own', async () => {
  t.handler = (req, res) => (req.url.startsWith('/reports') ? res.writeHead(503).end() : res.writeHead(200).end('ok'));
  const { http, plugin } = client({ retries: 0, breaker: { ...BREAKER, key: () => 'one-key' } });
  for (let i = 0; i < 10; i++) {
    await http.get(`${t.server.url}${i % 2 ? '/users' : '/reports'}/${i}`).catch(() => undefined);
  }
  expect(plugin.breaker('one-key')).toMatchObject({ opened: true });
});
