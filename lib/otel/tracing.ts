import axios, { getAdapter } from 'axios';
import type { AxiosAdapter, AxiosError, InternalAxiosRequestConfig } from 'axios';
import type { CircuitStateChange, GiveUpEvent, RetryEvent } from '../types';
import type { AttributesLike, OpenTelemetryApiLike, TracerLike } from './shapes';
import { SPAN_KIND_CLIENT, SPAN_KIND_INTERNAL, SPAN_STATUS_ERROR, originUrl } from './shapes';
import { RESEND_COUNT_ATTRIBUTE } from './resend-count';

/** Options of {@link openTelemetryRetries}. */
export interface OpenTelemetryRetriesOptions {
  /** Makes the spans: `trace.getTracer('your-service')`. */
  tracer: TracerLike;
  /** `@opentelemetry/api` itself (`import * as api from '@opentelemetry/api'`): its `context` and `trace`. */
  api: OpenTelemetryApiLike;
  /**
   * The adapter that really sends.
   * @default axios's own choice: `http` in Node, `xhr` or `fetch` in browsers
   */
  adapter?: InternalAxiosRequestConfig['adapter'];
}

/** What {@link openTelemetryRetries} makes: an adapter for the instance and three hooks for the plugin. */
export interface RetryTelemetry {
  /** Put on the axios instance (`axios.create({ adapter })`): the plugin sends every attempt through it. */
  adapter: AxiosAdapter;
  /** Pass to `retryPlugin()` (and call it from a per-request `onRetry`, which replaces the plugin's). */
  onRetry(event: RetryEvent): void;
  /** Pass to `retryPlugin()`. */
  onGiveUp(event: GiveUpEvent): void;
  /** Pass to `retryPlugin()`. */
  onCircuitStateChange(change: CircuitStateChange): void;
}

function serverAttributes(url: URL): AttributesLike {
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { 'server.address': url.hostname, 'server.port': port, 'url.full': url.href };
}

/**
 * Makes the adapter and hooks that trace each attempt. The attempt's span is the active one while
 * it is sent, so spans an instrumentation makes below it are its children.
 *
 * ```ts
 * import * as api from '@opentelemetry/api';
 * const otel = openTelemetryRetries({ tracer: api.trace.getTracer('checkout'), api });
 * const http = axios.create({ adapter: otel.adapter });
 * retryPlugin({ onRetry: otel.onRetry, onGiveUp: otel.onGiveUp, onCircuitStateChange: otel.onCircuitStateChange }).install(http);
 * ```
 */
export function openTelemetryRetries(options: OpenTelemetryRetriesOptions): RetryTelemetry {
  const { tracer, api } = options;
  const base = options.adapter;
  // onRetry hands over the config the next attempt is sent with; the attempt's span reads it here.
  const resendCounts = new WeakMap<InternalAxiosRequestConfig, number>();

  const adapter: AxiosAdapter = async (config) => {
    const send = getAdapter(base ?? axios.defaults.adapter, config);
    const method = (config.method ?? 'get').toUpperCase();
    const attributes: AttributesLike = {
      'http.request.method': method,
      ...serverAttributes(new URL(axios.getUri(config))),
    };
    // The conventions say: set on resends only, so the first attempt carries no count.
    const resendCount = resendCounts.get(config) ?? 0;
    if (resendCount > 0) attributes[RESEND_COUNT_ATTRIBUTE] = resendCount;
    const span = tracer.startSpan(method, { kind: SPAN_KIND_CLIENT, attributes });
    try {
      const active = api.trace.setSpan(api.context.active(), span);
      const response = await api.context.with(active, () => send(config));
      span.setAttribute('http.response.status_code', response.status);
      return response;
    } catch (error) {
      const status = (error as AxiosError).response?.status;
      if (status !== undefined) span.setAttribute('http.response.status_code', status);
      const code = (error as AxiosError).code;
      span.setAttribute('error.type', status !== undefined ? String(status) : (code ?? 'Error'));
      span.setStatus({ code: SPAN_STATUS_ERROR });
      throw error;
    } finally {
      span.end();
    }
  };

  return {
    adapter,
    onRetry(event) {
      // `attempt` counts the attempts made so far (1 before the first resend): exactly the resend
      // count of the attempt about to be sent.
      resendCounts.set(event.config, event.attempt);
      api.trace.getActiveSpan()?.addEvent('axios_resilience.retry', {
        'axios_resilience.attempt': event.attempt,
        'axios_resilience.delay_ms': event.delayMs,
        'axios_resilience.delay_source': event.delaySource,
        'axios_resilience.reason': event.reason,
      });
    },
    onGiveUp(event) {
      api.trace.getActiveSpan()?.addEvent('axios_resilience.give_up', {
        'axios_resilience.stop_reason': event.stopReason,
        'axios_resilience.attempts': event.retryState.attempts,
      });
    },
    onCircuitStateChange(change) {
      // State changes happen outside any one request (half-open comes from a timer), so each is a
      // short span of its own rather than an event on whichever request was active.
      const url = originUrl(change.origin);
      const where = url === undefined ? { 'server.address': change.origin } : serverAttributes(url);
      tracer
        .startSpan(`circuit ${change.state}`, {
          kind: SPAN_KIND_INTERNAL,
          attributes: { ...where, 'axios_resilience.circuit.state': change.state },
        })
        .end();
    },
  };
}
