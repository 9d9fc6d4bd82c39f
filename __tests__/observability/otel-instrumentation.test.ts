/**
 * `axios-resilience/otel` with the real `@opentelemetry/instrumentation-http`: a node:http server
 * on 127.0.0.1 answers 503, 503, 200 to one GET through the plugin, made under a caller's span.
 *
 * The scenario runs in a child process (support/observability/otel-instrumentation-child.ts), set
 * up as an application sets it up: jest's module registry gives require-in-the-middle a stand-in
 * `module`, so the instrumentation would never patch `http` in here. The assertions are all here.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { resendCountHook } from '../../lib/otel';
import type { ScenarioResult, SpanRecord } from '../support/observability/otel-instrumentation-child';

const run = promisify(execFile);

let result: { default: ScenarioResult; kept: ScenarioResult };

beforeAll(async () => {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, '..', 'support', 'observability', 'otel-instrumentation-child.ts')],
    {
      cwd: path.resolve(__dirname, '../..'),
      timeout: 15_000,
    },
  );
  result = JSON.parse(stdout) as typeof result;
});

const clientSpans = (r: ScenarioResult): SpanRecord[] => r.spans.filter((s) => s.kind === 'CLIENT');

describe('resendCountHook with instrumentation-http', () => {
  test('one CLIENT span per attempt, each a child of the caller span across the retry waits', () => {
    const r = result.default;
    expect(r.status).toBe(200);
    expect(r.attempts).toBe(3);
    expect(r.delaysMs).toEqual([10, 20]); // real waits between the attempts
    const spans = clientSpans(r);
    expect(spans.map((s) => [s.name, s.statusCode])).toEqual([
      ['GET', 503],
      ['GET', 503],
      ['GET', 200],
    ]);
    // The second and third attempts start after a timer: same trace and same parent prove the
    // caller's context survived the waits.
    for (const span of spans) {
      expect(span.traceId).toBe(r.parent.traceId);
      expect(span.parentSpanId).toBe(r.parent.spanId);
    }
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(3);
  });

  test('http.request.resend_count is 1 and 2 on the retries and absent on the first attempt', () => {
    expect(clientSpans(result.default).map((s) => s.resendCount)).toEqual([undefined, 1, 2]);
  });

  test('the attempt header is removed before it is sent: the server never sees it', () => {
    expect(result.default.headersSeen).toEqual([null, null, null]);
  });

  test('keepHeader sends a header of your own name and still counts resends', () => {
    const r = result.kept;
    expect(r.headersSeen).toEqual(['1', '2', '3']);
    expect(clientSpans(r).map((s) => s.resendCount)).toEqual([undefined, 1, 2]);
    for (const span of clientSpans(r)) expect(span.parentSpanId).toBe(r.parent.spanId);
  });

  test('server spans are left alone, even when the request they receive carries the header', () => {
    const servers = result.kept.spans.filter((s) => s.kind === 'SERVER');
    expect(servers).toHaveLength(3);
    expect(servers.map((s) => s.resendCount)).toEqual([undefined, undefined, undefined]);
  });
});

describe('resendCountHook on its own', () => {
  function request(headers: Record<string, string>) {
    const sent = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    return {
      sent,
      headersSent: false,
      getHeader: (name: string) => sent.get(name.toLowerCase()),
      removeHeader: (name: string) => void sent.delete(name.toLowerCase()),
    };
  }
  function span() {
    const attributes: Record<string, number | boolean> = {};
    return { attributes, setAttribute: (key: string, value: number | boolean) => void (attributes[key] = value) };
  }

  test('ignores a request without the header and a value that is not an attempt number', () => {
    const hook = resendCountHook();
    for (const headers of [{}, { 'x-retry-attempt': 'soon' }, { 'x-retry-attempt': '1.5' }]) {
      const s = span();
      hook(s, request(headers));
      expect(s.attributes).toEqual({});
    }
  });

  test('reads the header in any case and removes it unless told to keep it', () => {
    const removed = request({ 'X-Retry-Attempt': '4' });
    const s = span();
    resendCountHook()(s, removed);
    expect(s.attributes).toEqual({ 'http.request.resend_count': 3 });
    expect(removed.sent.size).toBe(0);

    const kept = request({ 'x-retry-attempt': '2' });
    resendCountHook({ keepHeader: true })(span(), kept);
    expect(kept.sent.get('x-retry-attempt')).toBe('2');
  });

  test('marks a hedged copy (attempt header "<n>; hedge") and still counts it as a resend', () => {
    const s = span();
    resendCountHook()(s, request({ 'x-retry-attempt': '3; hedge' }));
    expect(s.attributes).toEqual({ 'http.request.resend_count': 2, 'axios_resilience.hedge': true });
  });

  test('marks an attempt whose answer chaos drops (attempt header "<n>; chaos"), a hedged one too', () => {
    const first = span();
    resendCountHook()(first, request({ 'x-retry-attempt': '1; chaos' }));
    expect(first.attributes).toEqual({ 'axios_resilience.chaos': true });
    const copy = span();
    resendCountHook()(copy, request({ 'x-retry-attempt': '2; hedge; chaos' }));
    expect(copy.attributes).toEqual({
      'http.request.resend_count': 1,
      'axios_resilience.hedge': true,
      'axios_resilience.chaos': true,
    });
  });

  test('refuses a header name that is not one', () => {
    expect(() => resendCountHook({ header: 'X Retry' })).toThrow(TypeError);
  });
});
