import fs from 'node:fs';
import path from 'node:path';
import axios from 'axios';
import type { AxiosError } from 'axios';
import { retryPlugin } from '../../lib';
import { fake, rejection, until } from '../support/helpers';
import { startServer } from '../support/test-server';
import type { TestServer } from '../support/test-server';

// docs/guides/getting-started.md, "What a call ends with", run as written against a real server that
// answers 503 and then 200: the retryState each example shows is the one a call ends with. The random
// source is pinned (0.624 × 500 ms = the guide's 312 ms) and the wait runs on fake timers (a timer
// that fires late on a loaded machine would be reported as the longer wait it was); everything else
// is the defaults.

const ROOT = path.resolve(__dirname, '../..');
const guide = fs.readFileSync(path.join(ROOT, 'docs/guides/getting-started.md'), 'utf8');

let server: TestServer;
const plugins: Array<{ close(): Promise<void> }> = [];
beforeEach(async () => {
  server = await startServer((_req, res, index) => res.writeHead(index % 2 === 0 ? 503 : 200).end('{}'));
});
afterEach(async () => {
  jest.useRealTimers();
  while (plugins.length) await plugins.pop()!.close();
  await server.close();
});

/** The call, with fake time moved on by the one wait it announces. */
async function afterItsWait<T>(call: (onRetry: () => void) => Promise<T>): Promise<T> {
  fake();
  let waits = 0;
  const settled = call(() => void waits++);
  await until(() => waits === 1);
  await jest.advanceTimersByTimeAsync(312);
  return settled;
}

function instance(options: Parameters<typeof retryPlugin>[0] = {}) {
  const http = axios.create({ baseURL: server.url });
  const plugin = retryPlugin({ random: () => 0.624, ...options });
  plugin.install(http);
  plugins.push(plugin);
  return http;
}

test('a GET after a 503: { attempts: 2, delaysMs: [312] }', async () => {
  expect(guide).toContain('response.config.retryState; // { attempts: 2, delaysMs: [312] }');
  const response = await afterItsWait((onRetry) => instance({ onRetry }).get('/v1/items'));
  expect(response.config.retryState).toEqual({ attempts: 2, delaysMs: [312] });
  expect(server.requests).toHaveLength(2);
});

test("a POST after the same 503 stops after one attempt, 'non-idempotent', its key kept", async () => {
  const error = (await rejection(instance().post('/v1/payments', { amount: 4200 }))) as unknown as AxiosError;
  expect(error.response?.status).toBe(503);
  expect(error.config?.retryState).toMatchObject({ attempts: 1, stopReason: 'non-idempotent' });
  expect(error.config?.retryState?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  expect(server.requests).toHaveLength(1);
});

test('a POST to a server declared to dedupe keys: { attempts: 2, delaysMs: [312], idempotencyKey }', async () => {
  expect(guide).toContain("paid.config.retryState; // { attempts: 2, delaysMs: [312], idempotencyKey: '6f1c…' }");
  const paid = await afterItsWait((onRetry) =>
    instance({ onRetry, idempotencyKey: { serverDedupes: [server.url] } }).post('/v1/payments', { amount: 4200 }),
  );
  expect(paid.config.retryState).toEqual({ attempts: 2, delaysMs: [312], idempotencyKey: expect.any(String) });
  // Both attempts carried the one key.
  const keys = server.requests.map((r) => r.headers['idempotency-key']);
  expect(keys).toEqual([paid.config.retryState!.idempotencyKey, paid.config.retryState!.idempotencyKey]);
});

test('the stop-reason table lists every StopReason, once', () => {
  const source = fs.readFileSync(path.join(ROOT, 'lib/types/events.ts'), 'utf8');
  const union = /export type StopReason =([^;]*);/.exec(source)![1]!;
  const reasons = [...union.matchAll(/'([a-z-]+)'/g)].map((m) => m[1]);
  const listed = [...guide.matchAll(/^\| `([a-z-]+)` +\|/gm)].map((m) => m[1]);
  expect(reasons.length).toBeGreaterThanOrEqual(12);
  expect([...listed].sort()).toEqual([...reasons].sort());
});
