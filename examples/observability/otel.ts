/**
 * OpenTelemetry for axios-resilience: one CLIENT span per attempt, with `http.request.resend_count`
 * on every resend as the HTTP semantic conventions define it, plus span events for retries and
 * give-ups and a span for each circuit breaker state change.
 *
 * In your code import from 'axios-resilience'; this file sits in the repository and imports the
 * sources so that it is type-checked and tested with them (__tests__/observability).
 */
import axios, { getAdapter } from 'axios';
import type { AxiosAdapter, AxiosError, InternalAxiosRequestConfig } from 'axios';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Attributes, Tracer } from '@opentelemetry/api';
import type { CircuitStateChange, GiveUpEvent, RetryEvent } from '../../lib';

export interface RetryTelemetry {
  /** Put on the axios instance (`axios.create({ adapter })`): the plugin sends every attempt through it. */
  adapter: AxiosAdapter;
  /** Pass to `retryPlugin()`. */
  onRetry(event: RetryEvent): void;
  /** Pass to `retryPlugin()`. */
  onGiveUp(event: GiveUpEvent): void;
  /** Pass to `retryPlugin()`. */
  onCircuitStateChange(change: CircuitStateChange): void;
}

function serverAttributes(url: URL): Attributes {
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { 'server.address': url.hostname, 'server.port': port, 'url.full': url.href };
}

/**
 * Makes the adapter and hooks. `base` is the adapter that really sends (defaults to axios's own
 * choice: `http` in Node, `xhr` or `fetch` in browsers).
 */
export function openTelemetryRetries(tracer: Tracer, base?: InternalAxiosRequestConfig['adapter']): RetryTelemetry {
  // onRetry hands over the config the next attempt is sent with; the attempt's span reads it here.
  const resendCounts = new WeakMap<InternalAxiosRequestConfig, number>();

  const adapter: AxiosAdapter = async (config) => {
    const send = getAdapter(base ?? axios.defaults.adapter, config);
    const method = (config.method ?? 'get').toUpperCase();
    const url = new URL(axios.getUri(config));
    const attributes: Attributes = { 'http.request.method': method, ...serverAttributes(url) };
    // The conventions say: set on resends only, so the first attempt carries no count.
    const resendCount = resendCounts.get(config) ?? 0;
    if (resendCount > 0) attributes['http.request.resend_count'] = resendCount;
    const span = tracer.startSpan(method, { kind: SpanKind.CLIENT, attributes });
    try {
      const response = await context.with(trace.setSpan(context.active(), span), () => send(config));
      span.setAttribute('http.response.status_code', response.status);
      return response;
    } catch (error) {
      const status = (error as AxiosError).response?.status;
      if (status !== undefined) span.setAttribute('http.response.status_code', status);
      const code = (error as AxiosError).code;
      span.setAttribute('error.type', status !== undefined ? String(status) : (code ?? 'Error'));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  };

  return {
    adapter,
    onRetry(event) {
      // `attempt` is the number of attempts made so far (1 before the first resend), which is
      // exactly the resend count of the attempt about to be sent.
      resendCounts.set(event.config, event.attempt);
      trace.getActiveSpan()?.addEvent('axios_resilience.retry', {
        'axios_resilience.attempt': event.attempt,
        'axios_resilience.delay_ms': event.delayMs,
        'axios_resilience.delay_source': event.delaySource,
        'axios_resilience.reason': event.reason,
      });
    },
    onGiveUp(event) {
      trace.getActiveSpan()?.addEvent('axios_resilience.give_up', {
        'axios_resilience.stop_reason': event.stopReason,
        'axios_resilience.attempts': event.retryState.attempts,
      });
    },
    onCircuitStateChange(change) {
      // State changes happen outside any one request (half-open comes from a timer), so each is a
      // short span of its own rather than an event on whichever request was active.
      tracer
        .startSpan(`circuit ${change.state}`, {
          kind: SpanKind.INTERNAL,
          attributes: { ...serverAttributes(new URL(change.origin)), 'axios_resilience.circuit.state': change.state },
        })
        .end();
    },
  };
}
