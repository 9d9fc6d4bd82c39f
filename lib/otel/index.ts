/**
 * `axios-resilience/otel`: OpenTelemetry for the plugin. It imports nothing from OpenTelemetry,
 * so it needs no peer dependency: you hand it your `Meter`, `Tracer` or instrumentation.
 *
 * - `instrumentMetrics(plugin, meter)`: counters of retries, give-ups, breaker opens, rate-limiter
 *   engagements, budget refusals, calls and attempts, per origin.
 * - `openTelemetryRetries({ tracer, api })`: one CLIENT span per attempt, with
 *   `http.request.resend_count`, without instrumentation-http (or with axios's `fetch` adapter).
 * - `resendCountHook()`: `http.request.resend_count` on the spans of
 *   `@opentelemetry/instrumentation-http` (Node, axios's `http` adapter).
 *
 * ```ts
 * import { metrics } from '@opentelemetry/api';
 * const stop = instrumentMetrics(plugin, metrics.getMeter('checkout'));
 * new HttpInstrumentation({ requestHook: resendCountHook() });
 * retryPlugin({ attemptHeader: true });
 * ```
 *
 * @module axios-resilience/otel
 */
export { instrumentMetrics, METRIC_NAMES } from './metrics';
export type { InstrumentMetricsOptions, ObservablePlugin } from './metrics';
export { openTelemetryRetries } from './tracing';
export type { OpenTelemetryRetriesOptions, RetryTelemetry } from './tracing';
export { CHAOS_ATTRIBUTE, HEDGE_ATTRIBUTE, RESEND_COUNT_ATTRIBUTE, resendCountHook } from './resend-count';
export type { ResendCountHook, ResendCountHookOptions, SpanAttributeSetter } from './resend-count';
export type {
  AttributeValue,
  AttributesLike,
  CounterLike,
  HistogramLike,
  InstrumentOptionsLike,
  MeterLike,
  OpenTelemetryApiLike,
  SpanLike,
  TracerLike,
} from './shapes';
