import { AsyncLocalStorage } from 'node:async_hooks';
import axios from 'axios';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Context, ContextManager } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { retryPlugin } from '../../lib';
import type { RetryPlugin } from '../../lib';
import { startFaultServer } from '../../lib/testing';
import type { FaultServer } from '../../lib/testing';
import { openTelemetryRetries } from '../../lib/otel';
import { retryLogging } from '../../examples/observability/pino';

/**
 * What an OpenTelemetry Node SDK installs for you: the active span follows async calls. Written out
 * here because only @opentelemetry/api and sdk-trace-base are dependencies of this repository.
 */
class AsyncLocalContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = (...args: unknown[]) => this.with(ctx, () => (target as (...a: unknown[]) => unknown)(...args));
    return run as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('axios-resilience-test');

let server: FaultServer | undefined;
let plugin: RetryPlugin | undefined;

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalContextManager());
});
afterEach(async () => {
  await plugin?.close();
  await server?.close();
  plugin = undefined;
  server = undefined;
  exporter.reset();
});
afterAll(async () => {
  context.disable();
  await provider.shutdown();
});

function client(options: Parameters<typeof retryPlugin>[0] = {}) {
  const otel = openTelemetryRetries({ tracer, api: { context, trace } });
  const http = axios.create({ adapter: otel.adapter });
  plugin = retryPlugin({
    baseDelayMs: 2,
    random: () => 0.5,
    onRetry: otel.onRetry,
    onGiveUp: otel.onGiveUp,
    onCircuitStateChange: otel.onCircuitStateChange,
    ...options,
  });
  plugin.install(http);
  return http;
}

/** Runs `fn` inside a parent span, as a request handler of your service would. */
async function inParent<T>(fn: () => Promise<T>): Promise<{ result: T | unknown; parent: ReadableSpan }> {
  const parent = tracer.startSpan('handle checkout');
  let result: T | unknown;
  try {
    result = await context.with(trace.setSpan(context.active(), parent), fn);
  } catch (error) {
    result = error;
  }
  parent.end();
  const finished = exporter.getFinishedSpans().find((s) => s.name === 'handle checkout');
  return { result, parent: finished! };
}

const attemptSpans = () => exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);

describe('openTelemetryRetries (axios-resilience/otel)', () => {
  test('one CLIENT span per attempt, with http.request.resend_count on each resend only', async () => {
    server = await startFaultServer({ routes: { 'POST /v1/payments': ['503', '503', '201'] } });
    const http = client({ idempotencyKey: { serverDedupes: [server.url] } });
    const { parent } = await inParent(() => http.post(`${server!.url}/v1/payments`, { amount: 42 }));

    const spans = attemptSpans();
    expect(spans.map((s) => s.name)).toEqual(['POST', 'POST', 'POST']);
    expect(spans.map((s) => s.attributes['http.request.resend_count'])).toEqual([undefined, 1, 2]);
    expect(spans.map((s) => s.attributes['http.response.status_code'])).toEqual([503, 503, 201]);
    expect(spans.map((s) => s.status.code)).toEqual([SpanStatusCode.ERROR, SpanStatusCode.ERROR, SpanStatusCode.UNSET]);
    expect(spans[0]!.attributes['error.type']).toBe('503');
    expect(spans[0]!.attributes['server.address']).toBe('127.0.0.1');
    expect(spans[0]!.attributes['url.full']).toBe(`${server.url}/v1/payments`);
    // Every attempt is a child of the caller's span, and the caller's span tells the story.
    for (const span of spans) expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(parent.events.map((e) => [e.name, e.attributes?.['axios_resilience.attempt']])).toEqual([
      ['axios_resilience.retry', 1],
      ['axios_resilience.retry', 2],
    ]);
    expect(parent.events[0]!.attributes).toMatchObject({
      'axios_resilience.reason': '503',
      'axios_resilience.delay_source': 'backoff',
    });
  });

  test('a give-up is an event on the caller span with the stop reason', async () => {
    server = await startFaultServer({ routes: { 'GET /v1/items': ['503'] } });
    const http = client({ retries: 1 });
    const { result, parent } = await inParent(() => http.get(`${server!.url}/v1/items`));

    expect(axios.isAxiosError(result)).toBe(true);
    expect(attemptSpans().map((s) => s.attributes['http.request.resend_count'])).toEqual([undefined, 1]);
    const giveUp = parent.events.find((e) => e.name === 'axios_resilience.give_up');
    expect(giveUp?.attributes).toEqual({
      'axios_resilience.stop_reason': 'retries-exhausted',
      'axios_resilience.attempts': 2,
    });
  });

  test('a breaker that opens is reported as a span naming the origin', async () => {
    server = await startFaultServer({ routes: { 'GET /down': ['503'] } });
    const http = client({ retries: 0, breaker: { volumeThreshold: 2, errorThresholdPercentage: 50 } });
    await http.get(`${server.url}/down`).catch(() => undefined);
    await http.get(`${server.url}/down`).catch(() => undefined);

    const circuit = exporter.getFinishedSpans().filter((s) => s.name.startsWith('circuit '));
    expect(circuit.map((s) => s.name)).toEqual(['circuit open']);
    expect(circuit[0]!.attributes).toMatchObject({
      'axios_resilience.circuit.state': 'open',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(server.url).port),
    });
  });

  test('a breaker keyed by a name that is not a URL is reported under that name, as the metrics name it', async () => {
    server = await startFaultServer({ routes: { 'GET /down': ['503'] } });
    const key = 'tenant://acme corp';
    const http = client({ retries: 0, breaker: { volumeThreshold: 2, errorThresholdPercentage: 50, key: () => key } });
    await http.get(`${server.url}/down`).catch(() => undefined);
    await http.get(`${server.url}/down`).catch(() => undefined);

    const circuit = exporter.getFinishedSpans().filter((s) => s.name.startsWith('circuit '));
    expect(circuit.map((s) => s.name)).toEqual(['circuit open']);
    expect(circuit[0]!.attributes).toEqual({ 'server.address': key, 'axios_resilience.circuit.state': 'open' });
  });
});

describe('pino log lines', () => {
  test('one warn line per retry and one error line on give-up, with the fields an on-call engineer needs', async () => {
    server = await startFaultServer({ routes: { 'POST /v1/payments': ['503'] } });
    const lines: Array<{ level: string; msg: string } & Record<string, unknown>> = [];
    const logger = {
      info: (fields: object, msg: string) => lines.push({ level: 'info', ...fields, msg }),
      warn: (fields: object, msg: string) => lines.push({ level: 'warn', ...fields, msg }),
      error: (fields: object, msg: string) => lines.push({ level: 'error', ...fields, msg }),
    };
    plugin = retryPlugin({ retries: 2, baseDelayMs: 2, random: () => 0.5, ...retryLogging(logger) });
    const http = axios.create();
    plugin.install(http);
    await http.post(`${server.url}/v1/payments`, {}, { retry: { idempotencyKey: 'order-42' } }).catch(() => undefined);

    expect(lines.map((l) => `${l.level} ${l.msg}`)).toEqual([
      'warn retrying request',
      'warn retrying request',
      'error request failed for good',
    ]);
    expect(lines[0]).toEqual({
      level: 'warn',
      msg: 'retrying request',
      method: 'POST',
      url: `${server.url}/v1/payments`,
      attempt: 1,
      reason: '503',
      delayMs: 1,
      delaySource: 'backoff',
      idempotencyKey: 'order-42',
    });
    expect(lines[2]).toMatchObject({ stopReason: 'retries-exhausted', attempts: 3, delaysMs: [1, 2] });
  });
});
