/**
 * A server that allows so many requests in flight and answers a bare 429 beyond (issue 48, item 6),
 * through real axios and a real node:http server that holds its requests until the test lets them go:
 * a refusal the load explains is absorbed (its retries spend none of `retries`, each waits the first
 * retry's backoff); a refusal that comes with no more in flight than the successes had is not.
 */
import type { AxiosError } from 'axios';
import { client, closePlugins, rejection } from '../support/helpers';
import { serverPerTest, until } from '../support/test-server';
import type { ServerResponse } from 'node:http';

const t = serverPerTest();
afterEach(closePlugins);

/**
 * Requests to `/fill` are held until `letGo()`; `/r` is answered 200, or a bare 429 while `full()`
 * says so. The plugin's clock moves 10 ms a request.
 */
function heldServer(full: () => boolean, onRefused: (refused: number) => void = () => {}) {
  const held: ServerResponse[] = [];
  const seen = { refused: 0, clock: 1_000_000 };
  t.handler = (req, res) => {
    seen.clock += 10;
    if (req.url === '/fill') return void held.push(res);
    if (!full()) return void res.writeHead(200).end('ok');
    res.writeHead(429).end();
    onRefused(++seen.refused);
  };
  const letGo = (): void => held.splice(0).forEach((res) => res.writeHead(200).end('ok'));
  return { held, seen, letGo };
}

const options = (seen: { clock: number }) => ({
  retries: 1,
  baseDelayMs: 10,
  random: () => 0.5,
  now: () => seen.clock,
});

test('a call refused while three of the plugin’s requests are in flight, where its successes had none, is retried past `retries` until it is served', async () => {
  // The server allows three in flight; the first call is refused as if it were full.
  let refuseAll = false;
  const server = heldServer(
    () => refuseAll || server.held.length >= 3,
    // The call's fourth refusal (after the two of the first call) lets the three held requests go: the next is served.
    (refused) => {
      if (refused === 6) server.letGo();
    },
  );
  const { http } = client(options(server.seen));
  // A first call refused twice (it opens the origin's evidence), then 24 successes sent with nothing else in flight.
  refuseAll = true;
  await rejection(http.get(`${t.server.url}/r`));
  refuseAll = false;
  for (let i = 0; i < 24; i++) await http.get(`${t.server.url}/r`);
  const fills = Array.from({ length: 3 }, () => http.get(`${t.server.url}/fill`));
  await until(() => server.held.length === 3);
  const response = await http.get(`${t.server.url}/r`);
  await Promise.all(fills);

  expect(response.status).toBe(200);
  // Five requests of this call: four refused, with `retries: 1`; each retry waited the first retry's backoff.
  expect(response.config.retryState).toMatchObject({ attempts: 5, delaysMs: [5, 5, 5, 5] });
  expect(t.server.requests.filter((r) => r.url === '/r')).toHaveLength(2 + 24 + 5);
});

test('a call refused with as many in flight as its successes had is not the load’s: it stops at `retries`', async () => {
  let refusing = false;
  const server = heldServer(() => refusing);
  const { http } = client(options(server.seen));
  refusing = true;
  await rejection(http.get(`${t.server.url}/r`));
  refusing = false;
  // The 24 successes are sent with the same three requests in flight as the refused call will be.
  const fills = Array.from({ length: 3 }, () => http.get(`${t.server.url}/fill`));
  await until(() => server.held.length === 3);
  for (let i = 0; i < 24; i++) await http.get(`${t.server.url}/r`);
  refusing = true;
  const error = (await rejection(http.get(`${t.server.url}/r`))) as unknown as AxiosError;
  server.letGo();
  await Promise.all(fills);

  expect(error.response?.status).toBe(429);
  expect(error.config!.retryState).toMatchObject({ attempts: 2, stopReason: 'retries-exhausted', delaysMs: [5] });
  expect(t.server.requests.filter((r) => r.url === '/r')).toHaveLength(2 + 24 + 2);
});
