/**
 * The slices of OpenTelemetry's API this entry calls, typed by shape (see index.ts): any `Meter`,
 * `Tracer`, `Span` or the `context`/`trace` API objects of `@opentelemetry/api` 1.x fit.
 */

/** An attribute value, as OpenTelemetry takes one. */
export type AttributeValue = string | number | boolean;

/** Attributes of a measurement, a span or an event. */
export type AttributesLike = Record<string, AttributeValue>;

/** Options for a new instrument. */
export interface InstrumentOptionsLike {
  description?: string;
  unit?: string;
}

/** OpenTelemetry's `Counter`. */
export interface CounterLike {
  add(value: number, attributes?: AttributesLike): void;
}

/** OpenTelemetry's `Histogram`. */
export interface HistogramLike {
  record(value: number, attributes?: AttributesLike): void;
}

/** The part of OpenTelemetry's `Meter` that `instrumentMetrics` uses; `metrics.getMeter(name)` returns one. */
export interface MeterLike {
  createCounter(name: string, options?: InstrumentOptionsLike): CounterLike;
  createHistogram(name: string, options?: InstrumentOptionsLike): HistogramLike;
}

/** The part of OpenTelemetry's `Span` that `openTelemetryRetries` uses. */
export interface SpanLike {
  setAttribute(key: string, value: AttributeValue): unknown;
  setStatus(status: { code: number }): unknown;
  addEvent(name: string, attributes?: AttributesLike): unknown;
  end(): void;
}

/** The part of OpenTelemetry's `Tracer` that `openTelemetryRetries` uses. */
export interface TracerLike {
  startSpan(name: string, options?: { kind?: number; attributes?: AttributesLike }): SpanLike;
}

/**
 * The parts of `@opentelemetry/api`'s `context` and `trace` that `openTelemetryRetries` uses, to
 * make an attempt's span the active one while it is sent and to find the caller's span. Pass the
 * API itself: `import * as api from '@opentelemetry/api'`.
 */
export interface OpenTelemetryApiLike {
  context: {
    active(): unknown;
    with<T>(context: unknown, fn: () => T): T;
  };
  trace: {
    setSpan(context: unknown, span: SpanLike): unknown;
    getActiveSpan(): SpanLike | undefined;
  };
}

/** OpenTelemetry's numbers for what the recipe uses (`SpanKind`, `SpanStatusCode`), stable since API 1.0. */
export const SPAN_KIND_INTERNAL = 0;
export const SPAN_KIND_CLIENT = 2;
export const SPAN_STATUS_ERROR = 2;

/** The URL of an origin (`https://api.example.com:443`), or `undefined` for a key that is not one (a `breaker.key` result). */
export function originUrl(originOrKey: string): URL | undefined {
  if (!originOrKey.includes('://')) return undefined;
  try {
    return new URL(originOrKey);
  } catch {
    return undefined;
  }
}

/** `server.address` for an origin (`https://api.example.com:443` → `api.example.com`); any other key as it is. */
export function serverAddress(originOrKey: string): string {
  return originUrl(originOrKey)?.hostname ?? originOrKey;
}
