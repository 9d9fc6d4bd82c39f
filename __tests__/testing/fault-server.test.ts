import axios from 'axios';
import type { AxiosError } from 'axios';
import { gapsMs, startFaultServer } from '../../lib/testing';
import type { FaultServer } from '../../lib/testing';

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// A plain client: these tests are about the server, so nothing retries.
const http = axios.create({ validateStatus: () => true });

describe('startFaultServer', () => {
  test('answers a route from its script in order, then repeats the last step', async () => {
    server = await startFaultServer({ routes: { 'GET /v1/items': ['503', 503, '200'] } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await http.get(`${server.url}/v1/items`)).status);
    expect(statuses).toEqual([503, 503, 200, 200, 200]);
    expect(server.requestsTo('GET /v1/items').map((r) => r.step)).toEqual([0, 1, 2, 2, 2]);
  });

  test('listens on 127.0.0.1 on a free port', async () => {
    server = await startFaultServer({ routes: { 'GET /': ['204'] } });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Number(new URL(server.url).port)).toBeGreaterThan(0);
  });

  test('records method, path with query, headers, body and arrival time of every request', async () => {
    server = await startFaultServer({ routes: { 'POST /v1/payments': ['201'] } });
    const before = Date.now();
    await http.post(`${server.url}/v1/payments?source=test`, { amount: 42 }, { headers: { 'Idempotency-Key': 'k-1' } });
    const [request] = server.requests;
    expect(request).toMatchObject({
      method: 'POST',
      path: '/v1/payments?source=test',
      body: '{"amount":42}',
      route: 'POST /v1/payments',
      step: 0,
    });
    expect(request!.headers['idempotency-key']).toBe('k-1');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.time).toBeGreaterThanOrEqual(before);
    expect(request!.time).toBeLessThanOrEqual(Date.now());
  });

  test('sends the headers and body of a response step: 429 with Retry-After, JSON bodies', async () => {
    server = await startFaultServer({
      routes: {
        'GET /limited': [{ status: 429, headers: { 'Retry-After': '5' }, body: 'slow down' }],
        'GET /json': [{ body: { ok: true } }],
      },
    });
    const limited = await http.get(`${server.url}/limited`);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('5');
    expect(limited.data).toBe('slow down');
    const json = await http.get(`${server.url}/json`);
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toBe('application/json');
    expect(json.data).toEqual({ ok: true });
  });

  test('a delay step holds the response back; a client timeout ends it and close() leaves nothing pending', async () => {
    server = await startFaultServer({ routes: { 'GET /slow': [{ delayMs: 60 }, { delayMs: 60_000 }] } });
    const started = Date.now();
    const first = await http.get(`${server.url}/slow`);
    expect(first.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    const error = (await http.get(`${server.url}/slow`, { timeout: 50 }).catch((e: unknown) => e)) as AxiosError;
    expect(error.code).toBe('ECONNABORTED');
    // The 60 s timer must not keep jest alive (run with --detectOpenHandles).
  });

  test('a reset step drops the connection without a response', async () => {
    server = await startFaultServer({
      routes: { 'POST /a': [{ reset: 'before-commit' }], 'POST /b': [{ reset: 'after-commit', delayMs: 20 }] },
    });
    for (const path of ['/a', '/b']) {
      const error = (await http.post(`${server.url}${path}`, 'x').catch((e: unknown) => e)) as AxiosError;
      expect(error.code).toBe('ECONNRESET');
      expect(error.response).toBeUndefined();
    }
    expect(server.requests.map((r) => r.path)).toEqual(['/a', '/b']);
  });

  test('a request that matches no route gets a 404 and is still recorded', async () => {
    server = await startFaultServer({ routes: { 'GET /known': ['200'] } });
    const response = await http.post(`${server.url}/known`);
    expect(response.status).toBe(404);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: 'POST', route: undefined, step: -1 });
    expect(server.requestsTo('GET /known')).toEqual([]);
  });

  test('route methods are case-insensitive and the path is matched without its query', async () => {
    server = await startFaultServer({ routes: { 'get /q': ['202'] } });
    expect((await http.get(`${server.url}/q?a=1`)).status).toBe(202);
    expect(server.requestsTo('GET /q')).toHaveLength(1);
  });

  test('gapsMs gives the time between consecutive requests as the server saw them', () => {
    expect(gapsMs([{ time: 100 }, { time: 130 }, { time: 200 }])).toEqual([30, 70]);
    expect(gapsMs([{ time: 5 }])).toEqual([]);
  });

  test('rejects a malformed script before listening', async () => {
    await expect(startFaultServer({ routes: { 'GET /x': [] } })).rejects.toThrow(TypeError);
    await expect(startFaultServer({ routes: { 'GET /x': ['abc' as '503'] } })).rejects.toThrow(/status/);
    await expect(startFaultServer({ routes: { 'GET /x': [{ delayMs: -1 }] } })).rejects.toThrow(/delayMs/);
    await expect(startFaultServer({ routes: { 'GET /x': [{ reset: 'never' as 'after-commit' }] } })).rejects.toThrow(
      /reset/,
    );
    await expect(startFaultServer({ routes: { '/x': ['200'] } })).rejects.toThrow(/route key/);
  });

  test('close() can be called twice', async () => {
    const own = await startFaultServer({ routes: { 'GET /': ['200'] } });
    await own.close();
    await expect(own.close()).resolves.toBeUndefined();
  });
});
