/**
 * instrumentMetrics against the real OpenTelemetry metrics SDK: real calls through axios to a
 * node:http server on 127.0.0.1, then the counters a MetricReader collects, with their attributes.
 */
import axios from 'axios';
import * as api from '@opentelemetry/api';
import { DataPointType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { CircuitOpenError, retryPlugin } from '../../lib';
import type { RetryPlugin, RetryPluginOptions } from '../../lib';
import { instrumentMetrics } from '../../lib/otel';
import type { InstrumentMetricsOptions } from '../../lib/otel';
import { startServer } from '../support/test-server';
import type { Handler, TestServer } from '../support/test-server';
import { observedClient } from '../../examples/observability/otel';

/** A reader the test collects from when it wants, as a Prometheus scrape would. */
class PullReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

let reader: PullReader;
let provider: MeterProvider;
let server: TestServer | undefined;
let plugin: RetryPlugin | undefined;
let stop: (() => void) | undefined;

beforeEach(() => {
  reader = new PullReader();
  provider = new MeterProvider({ readers: [reader] });
});
afterEach(async () => {
  stop?.();
  await plugin?.close();
  await server?.close();
  await provider.shutdown();
  stop = plugin = server = undefined;
});

/** Statuses answered in turn per path (the last one repeats); headers with a status as `[status, headers]`. */
function scripted(script: Record<string, Array<number | [number, Record<string, string>]>>): Handler {
  const seen = new Map<string, number>();
  return (request, response) => {
    const steps = script[request.url] ?? [200];
    const index = seen.get(request.url) ?? 0;
    seen.set(request.url, index + 1);
    const step = steps[Math.min(index, steps.length - 1)]!;
    const [status, headers] = typeof step === 'number' ? [step, {}] : step;
    response.writeHead(status, headers);
    response.end();
  };
}

async function setUp(
  script: Parameters<typeof scripted>[0],
  options: RetryPluginOptions = {},
  metricOptions?: InstrumentMetricsOptions,
) {
  server = await startServer(scripted(script));
  plugin = retryPlugin({ baseDelayMs: 2, random: () => 0.5, ...options });
  const http = axios.create();
  plugin.install(http);
  stop = instrumentMetrics(plugin, provider.getMeter('axios-resilience-test'), metricOptions);
  return { http, url: server.url };
}

/** The data points of the metric `name`, as `{ attributes, value }` (a histogram's value: its count and sum). */
async function points(name: string): Promise<Array<{ attributes: Record<string, unknown>; value: unknown }>> {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  if (metric === undefined) return [];
  return (metric.dataPoints as Array<DataPoint<number | Histogram>>).map((point) => ({
    attributes: point.attributes,
    value:
      metric.dataPointType === DataPointType.HISTOGRAM
        ? { count: (point.value as Histogram).count, sum: (point.value as Histogram).sum }
        : point.value,
  }));
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('instrumentMetrics with the OpenTelemetry SDK', () => {
  test('503 then 200: one retry by reason, one successful call of two attempts, the wait recorded', async () => {
    const { http, url } = await setUp({ '/items': [503, 200] });
    expect((await http.get(`${url}/items`)).status).toBe(200);

    expect(await points('axios_resilience.retries')).toEqual([
      { attributes: { 'server.address': '127.0.0.1', reason: '503' }, value: 1 },
    ]);
    expect(await points('axios_resilience.calls')).toEqual([
      { attributes: { 'server.address': '127.0.0.1', outcome: 'success' }, value: 1 },
    ]);
    expect(await points('axios_resilience.attempts')).toEqual([
      { attributes: { 'server.address': '127.0.0.1' }, value: 2 },
    ]);
    // Full jitter with random 0.5 and base 2 ms: a 1 ms wait.
    expect(await points('axios_resilience.retry.delay')).toEqual([
      { attributes: { 'server.address': '127.0.0.1', delay_source: 'backoff' }, value: { count: 1, sum: 1 } },
    ]);
    expect(await points('axios_resilience.give_ups')).toEqual([]);
    expect(server!.requests).toHaveLength(2);
  });

  test('a POST that got a 503 stops non-idempotent: a give-up by stop reason, no retry', async () => {
    const { http, url } = await setUp({ '/orders': [503, 201] });
    const error = await failure(http.post(`${url}/orders`, { amount: 1 }));
    expect(axios.isAxiosError(error) && error.response?.status).toBe(503);

    expect(await points('axios_resilience.give_ups')).toEqual([
      { attributes: { 'server.address': '127.0.0.1', stop_reason: 'non-idempotent' }, value: 1 },
    ]);
    expect(await points('axios_resilience.retries')).toEqual([]);
    expect(await points('axios_resilience.calls')).toEqual([
      { attributes: { 'server.address': '127.0.0.1', outcome: 'failure' }, value: 1 },
    ]);
    expect(server!.requests).toHaveLength(1);
  });

  test('a breaker that opens: one open, then the refused call is a circuit-open give-up', async () => {
    const { http, url } = await setUp(
      { '/down': [503] },
      { retries: 0, breaker: { volumeThreshold: 2, errorThresholdPercentage: 50 } },
    );
    await failure(http.get(`${url}/down`));
    await failure(http.get(`${url}/down`));
    expect(await failure(http.get(`${url}/down`))).toBeInstanceOf(CircuitOpenError);

    expect(await points('axios_resilience.breaker.opens')).toEqual([
      { attributes: { 'server.address': '127.0.0.1' }, value: 1 },
    ]);
    const giveUps = await points('axios_resilience.give_ups');
    expect(giveUps).toContainEqual({
      attributes: { 'server.address': '127.0.0.1', stop_reason: 'circuit-open' },
      value: 1,
    });
    expect(giveUps).toContainEqual({
      attributes: { 'server.address': '127.0.0.1', stop_reason: 'retries-exhausted' },
      value: 2,
    });
    expect(server!.requests).toHaveLength(2);
  });

  test('a spent retry budget: a refusal and a budget-exhausted give-up', async () => {
    const { http, url } = await setUp({ '/busy': [503] }, { budget: { ratio: 0, minPerSecond: 0 } });
    await failure(http.get(`${url}/busy`));

    expect(await points('axios_resilience.budget.refusals')).toEqual([
      { attributes: { 'server.address': '127.0.0.1' }, value: 1 },
    ]);
    expect(await points('axios_resilience.give_ups')).toEqual([
      { attributes: { 'server.address': '127.0.0.1', stop_reason: 'budget-exhausted' }, value: 1 },
    ]);
    expect(server!.requests).toHaveLength(1);
  });

  test('a throttle engages the rate limiter once; the retry is counted under its reason', async () => {
    const { http, url } = await setUp({ '/limited': [[429, { 'retry-after-ms': '20' }], 200] });
    expect((await http.get(`${url}/limited`)).status).toBe(200);

    expect(await points('axios_resilience.rate_limiter.engagements')).toEqual([
      { attributes: { 'server.address': '127.0.0.1' }, value: 1 },
    ]);
    const retries = await points('axios_resilience.retries');
    expect(retries).toHaveLength(1);
    expect(retries[0]!.value).toBe(1);
    expect(server!.requests).toHaveLength(2);
  });

  test('a retry of a failure chaos injected is counted with axios_resilience.injected', async () => {
    const { http, url } = await setUp(
      { '/items': [503, 200] },
      { chaos: { seed: 1, faults: [{ rate: 1, status: 503, match: { path: '/injected' } }] }, retries: 1 },
    );
    // A real 503 then 200 on one path; an injected 503 (nothing sent) twice on another.
    expect((await http.get(`${url}/items`)).status).toBe(200);
    expect(await failure(http.get(`${url}/injected`))).toBeDefined();
    expect(await points('axios_resilience.retries')).toEqual([
      { attributes: { 'server.address': '127.0.0.1', reason: '503' }, value: 1 },
      { attributes: { 'server.address': '127.0.0.1', reason: '503', 'axios_resilience.injected': true }, value: 1 },
    ]);
    expect(server!.requests.map((r) => r.url)).toEqual(['/items', '/items']);
  });

  test('a per-request onRetry does not hide retries from the counters', async () => {
    const { http, url } = await setUp({ '/items': [503, 503, 200] });
    const seen: number[] = [];
    await http.get(`${url}/items`, { retry: { onRetry: (event) => void seen.push(event.attempt) } });

    expect(seen).toEqual([1, 2]);
    expect(await points('axios_resilience.retries')).toEqual([
      { attributes: { 'server.address': '127.0.0.1', reason: '503' }, value: 2 },
    ]);
  });

  test('serverAddress chooses the attribute; the function returned stops counting', async () => {
    const { http, url } = await setUp({ '/items': [503, 200] }, {}, { serverAddress: (origin) => `svc:${origin}` });
    await http.get(`${url}/items`);
    expect(await points('axios_resilience.retries')).toEqual([
      { attributes: { 'server.address': `svc:${url}`, reason: '503' }, value: 1 },
    ]);

    stop!();
    await http.get(`${url}/items`);
    await http.get(`${url}/items`);
    expect(server!.requests).toHaveLength(4);
    expect(await points('axios_resilience.retries')).toEqual([
      { attributes: { 'server.address': `svc:${url}`, reason: '503' }, value: 1 },
    ]);
  });
});

describe('examples/observability/otel.ts: the global providers, traced and counted', () => {
  test('a 503 then 200 through observedClient: two CLIENT spans and one retry counted', async () => {
    const spans = new InMemorySpanExporter();
    const tracing = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
    api.trace.setGlobalTracerProvider(tracing);
    api.metrics.setGlobalMeterProvider(provider);
    server = await startServer(scripted({ '/items': [503, 200] }));
    const client = observedClient('checkout', { baseDelayMs: 2 });
    try {
      expect((await client.http.get(`${server.url}/items`)).status).toBe(200);
    } finally {
      await client.close();
      api.trace.disable();
      api.metrics.disable();
    }
    const attempts = spans.getFinishedSpans().filter((s) => s.kind === api.SpanKind.CLIENT);
    expect(attempts.map((s) => s.attributes['http.response.status_code'])).toEqual([503, 200]);
    expect(attempts.map((s) => s.attributes['http.request.resend_count'])).toEqual([undefined, 1]);
    expect(await points('axios_resilience.retries')).toEqual([
      { attributes: { 'server.address': '127.0.0.1', reason: '503' }, value: 1 },
    ]);
    await tracing.shutdown();
  });
});
