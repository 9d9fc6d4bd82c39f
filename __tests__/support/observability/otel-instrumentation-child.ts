/**
 * The scenario of otel-instrumentation.test.ts, run the way an application runs it: a
 * `NodeTracerProvider` and the real `HttpInstrumentation` set up before axios loads `http` (what a
 * `--require ./tracing.js` file does), then calls through the plugin under a caller's span.
 * Prints one JSON object: per scenario, the spans the exporter got and the attempt headers the
 * server saw.
 *
 * It runs in a child process because jest cannot host it: instrumentation-http patches `http`
 * through require-in-the-middle, which hooks Node's `Module`, and jest hands modules in its
 * registry a stand-in `module`, so the patch never happens there.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import type { HttpInstrumentationConfig } from '@opentelemetry/instrumentation-http';
import type { RetryPluginOptions } from '../../../lib';
import type { ResendCountHookOptions } from '../../../lib/otel';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register(); // the async-local-storage context manager and W3C propagation
const instrumentation = new HttpInstrumentation();
instrumentation.setTracerProvider(provider);
const tracer = provider.getTracer('checkout');

// Loaded only now, after the instrumentation hooked `require`, as an application's tracing file
// ensures by being loaded first.
/* eslint-disable @typescript-eslint/no-require-imports */
const axios = (require('axios') as typeof import('axios')).default;
const { retryPlugin } = require('../../../lib') as typeof import('../../../lib');
const { resendCountHook } = require('../../../lib/otel') as typeof import('../../../lib/otel');
/* eslint-enable @typescript-eslint/no-require-imports */

export interface SpanRecord {
  name: string;
  kind: 'CLIENT' | 'SERVER' | 'INTERNAL' | 'OTHER';
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  resendCount: unknown;
  statusCode: unknown;
}

export interface ScenarioResult {
  /** The caller's span. */
  parent: { traceId: string; spanId: string };
  /** Every span the exporter got other than the caller's, in the order they ended. */
  spans: SpanRecord[];
  /** The value of the attempt header on each request the server received (`null`: absent). */
  headersSeen: Array<string | null>;
  status: number;
  attempts: number | undefined;
  delaysMs: number[] | undefined;
}

const KINDS: Record<number, SpanRecord['kind']> = {
  [SpanKind.CLIENT]: 'CLIENT',
  [SpanKind.SERVER]: 'SERVER',
  [SpanKind.INTERNAL]: 'INTERNAL',
};

async function scenario(
  hookOptions: ResendCountHookOptions | undefined,
  attemptHeader: NonNullable<RetryPluginOptions['attemptHeader']>,
  headerName: string,
): Promise<ScenarioResult> {
  const config: HttpInstrumentationConfig = { requestHook: resendCountHook(hookOptions) };
  instrumentation.setConfig(config);
  exporter.reset();

  const statuses = [503, 503, 200];
  const headersSeen: Array<string | null> = [];
  const server = http.createServer((req, res) => {
    const value = req.headers[headerName.toLowerCase()];
    headersSeen.push(typeof value === 'string' ? value : null);
    res.writeHead(statuses.shift() ?? 500, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/items`;

  const client = axios.create();
  // Waits of 10 and 20 ms on real timers: the context must survive them.
  const plugin = retryPlugin({ attemptHeader, baseDelayMs: 20, random: () => 0.5, breaker: false });
  plugin.install(client);
  try {
    const { parent, response } = await tracer.startActiveSpan('handle checkout', async (span) => {
      try {
        return { parent: span.spanContext(), response: await client.get(url) };
      } finally {
        span.end();
      }
    });
    const spans = exporter
      .getFinishedSpans()
      .filter((s) => s.spanContext().spanId !== parent.spanId)
      .map((s): SpanRecord => ({
        name: s.name,
        kind: KINDS[s.kind] ?? 'OTHER',
        traceId: s.spanContext().traceId,
        spanId: s.spanContext().spanId,
        parentSpanId: s.parentSpanContext?.spanId,
        resendCount: s.attributes['http.request.resend_count'],
        statusCode: s.attributes['http.response.status_code'] ?? s.attributes['http.status_code'],
      }));
    return {
      parent: { traceId: parent.traceId, spanId: parent.spanId },
      spans,
      headersSeen,
      status: response.status,
      attempts: response.config.retryState?.attempts,
      delaysMs: response.config.retryState?.delaysMs,
    };
  } finally {
    await plugin.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

async function main() {
  const result = {
    // The two lines of the guide: the header is read, then removed before it is sent.
    default: await scenario(undefined, true, 'X-Retry-Attempt'),
    // A header of your own name, kept for the server.
    kept: await scenario({ header: 'X-Attempt', keepHeader: true }, 'X-Attempt', 'X-Attempt'),
  };
  instrumentation.disable();
  await provider.shutdown();
  process.stdout.write(JSON.stringify(result));
}

void main();
