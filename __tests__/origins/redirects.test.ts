import axios from 'axios';
import { CircuitOpenError, retryPlugin } from '../../lib';
import type { RetryPluginOptions } from '../../lib';
import { rejection } from '../support/helpers';
import { startServer } from '../support/test-server';
import type { TestServer } from '../support/test-server';

// A call redirected from origin A to origin B (Node's http adapter follows the 302) is accounted to
// B, the origin that answered: B's failures open B's breaker and spend B's budget, not A's, and B's
// successes count at B. Two real servers on 127.0.0.1.

let a: TestServer;
let b: TestServer;
let bDown = true;
const plugins: Array<{ close(): Promise<void> }> = [];

beforeEach(async () => {
  bDown = true;
  b = await startServer((_req, res) => res.writeHead(bDown ? 503 : 200).end(bDown ? 'down' : 'ok'));
  a = await startServer((req, res) => {
    if (req.url === '/health') res.writeHead(200).end('a is fine');
    else res.writeHead(302, { location: `${b.url}${req.url}` }).end();
  });
});
afterEach(async () => {
  while (plugins.length) await plugins.pop()!.close();
  await a.close();
  await b.close();
});

function client(options: RetryPluginOptions) {
  const http = axios.create();
  const plugin = retryPlugin({ random: () => 0, baseDelayMs: 1, ...options });
  plugin.install(http);
  plugins.push(plugin);
  return { http, plugin };
}

test("failures after a redirect open the breaker of the origin that failed; the redirecting origin's own calls still go", async () => {
  const { http, plugin } = client({ retries: 1, budget: false, breaker: { volumeThreshold: 3 } });
  for (let i = 0; i < 3; i++) {
    const error = await rejection(http.get(`${a.url}/pay`));
    expect(error).not.toBeInstanceOf(CircuitOpenError);
  }
  // Each call: its attempt and its retry went A → B, and B answered 503.
  expect(b.requests).toHaveLength(6);
  expect(plugin.breaker(b.url)?.opened).toBe(true);
  expect(plugin.breaker(a.url)?.opened ?? false).toBe(false);
  // A's own endpoint is healthy and is not refused.
  const health = await http.get(`${a.url}/health`);
  expect(health.data).toBe('a is fine');
  // B's breaker refuses a call to B itself, unsent.
  const sentToB = b.requests.length;
  expect(await rejection(http.get(`${b.url}/direct`))).toBeInstanceOf(CircuitOpenError);
  expect(b.requests).toHaveLength(sentToB);
});

test('a retry after a redirect is refused once the breaker of the origin that answered is open', async () => {
  const { http, plugin } = client({ retries: 3, budget: false, breaker: { volumeThreshold: 2 } });
  for (let i = 0; i < 2; i++) await rejection(http.get(`${b.url}/direct`));
  expect(plugin.breaker(b.url)?.opened).toBe(true);
  const before = b.requests.length;
  const error = await rejection(http.get(`${a.url}/pay`));
  // The first attempt could not know where it would end; its retry is not sent into the open breaker.
  expect(error.config).toMatchObject({ retryState: { attempts: 1, stopReason: 'circuit-open' } });
  expect(b.requests).toHaveLength(before + 1);
});

test('retries after a redirect spend the budget of the origin that answered', async () => {
  // Per origin: B's budget has no retries to give; A's would.
  const { http, plugin } = client({
    retries: 3,
    breaker: false,
    budget: { ratio: 0, minPerSecond: 0, windowMs: 10_000 },
  });
  const error = await rejection(http.get(`${a.url}/pay`));
  expect(error.config).toMatchObject({ retryState: { attempts: 1, stopReason: 'budget-exhausted' } });
  expect(plugin.budget(b.url)).toBeDefined();
  expect(b.requests).toHaveLength(1);
});

test('a success after a redirect is counted by the breaker of the origin that answered it', async () => {
  const { http, plugin } = client({ retries: 0, budget: false });
  // B fails once, so it has a breaker with counts to read.
  await rejection(http.get(`${b.url}/direct`));
  bDown = false;
  const before = plugin.breaker(b.url)!.stats.successes;
  const response = await http.get(`${a.url}/pay`);
  expect(response.data).toBe('ok');
  expect(plugin.breaker(b.url)!.stats.successes).toBe(before + 1);
  expect(plugin.breaker(a.url)?.stats.successes ?? 0).toBe(0);
});
