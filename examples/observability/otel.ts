/**
 * OpenTelemetry for axios-resilience, wired in one place: one CLIENT span per attempt with
 * `http.request.resend_count` on every resend, retry and give-up events on the caller's span, a
 * span per circuit breaker state change, and the plugin's counters (retries, give-ups, breaker
 * opens, …) on a `Meter`. Everything comes from the package: copy this file as it is.
 */
import axios from 'axios';
import type { AxiosInstance } from 'axios';
import * as api from '@opentelemetry/api';
import { retryPlugin } from 'axios-resilience';
import type { RetryPlugin, RetryPluginOptions } from 'axios-resilience';
import { instrumentMetrics, openTelemetryRetries } from 'axios-resilience/otel';

export interface ObservedClient {
  http: AxiosInstance;
  plugin: RetryPlugin;
  /** Stops the counters and closes the plugin. */
  close(): Promise<void>;
}

/**
 * An axios instance with retries, traced and counted under `service` (the tracer's and the meter's
 * name). `options` are the plugin's; its three hooks are the tracing recipe's.
 */
export function observedClient(service: string, options: RetryPluginOptions = {}): ObservedClient {
  const otel = openTelemetryRetries({ tracer: api.trace.getTracer(service), api });
  const http = axios.create({ adapter: otel.adapter });
  const plugin = retryPlugin({
    ...options,
    onRetry: otel.onRetry,
    onGiveUp: otel.onGiveUp,
    onCircuitStateChange: otel.onCircuitStateChange,
  });
  plugin.install(http);
  const stopMetrics = instrumentMetrics(plugin, api.metrics.getMeter(service));
  return {
    http,
    plugin,
    async close() {
      stopMetrics();
      await plugin.close();
    },
  };
}
