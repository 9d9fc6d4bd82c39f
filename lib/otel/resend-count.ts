import { DEFAULTS } from '../policy/defaults';
import { HEADER_NAME, typed } from '../policy/validate';

/** The attribute the OpenTelemetry HTTP semantic conventions define for resends. */
export const RESEND_COUNT_ATTRIBUTE = 'http.request.resend_count';

/** Set to `true` on the span of a hedged copy (the plugin's attempt header then reads `'<n>; hedge'`). */
export const HEDGE_ATTRIBUTE = 'axios_resilience.hedge';

/**
 * Set to `true` on the span of an attempt whose answer `chaos` will drop (`phase: 'after'`: the
 * attempt header then reads `'<n>; chaos'`): the server's status on the span is not what the
 * client saw. A fault injected before the send sends nothing, so it has no span.
 */
export const CHAOS_ATTRIBUTE = 'axios_resilience.chaos';

/** The one method of an OpenTelemetry `Span` the hook calls; any `Span` is one. */
export interface SpanAttributeSetter {
  setAttribute(key: string, value: number | boolean): unknown;
}

/** Options of {@link resendCountHook}. */
export interface ResendCountHookOptions {
  /**
   * The header that carries the attempt number: the plugin's `attemptHeader` (`true` means
   * `X-Retry-Attempt`; pass the same string when you gave it a name).
   * @default 'X-Retry-Attempt'
   */
  header?: string;
  /**
   * Keep the header on the request. By default the hook removes it before it is sent, so the
   * attempt number reaches the span but not the server; `true` sends it too, for servers and
   * proxies that shed retries first (what `attemptHeader` is for without OpenTelemetry).
   * @default false
   */
  keepHeader?: boolean;
}

/** The part of Node's `http.ClientRequest` the hook uses. */
interface OutgoingRequest {
  readonly headersSent: boolean;
  getHeader(name: string): number | string | string[] | undefined;
  removeHeader(name: string): void;
}

/**
 * The hook `@opentelemetry/instrumentation-http` calls for each request it traces: a client span
 * with the `ClientRequest`, a server span with the `IncomingMessage` (which it leaves alone). The
 * request is typed `object` so that these types need neither OpenTelemetry's nor Node's.
 */
export type ResendCountHook = (span: SpanAttributeSetter, request: object) => void;

/**
 * Makes a `requestHook` for `@opentelemetry/instrumentation-http` that sets
 * `http.request.resend_count` on each retry's CLIENT span: 1 on the first retry, 2 on the second,
 * absent on the first attempt, as the HTTP semantic conventions define it. Install the plugin with
 * `attemptHeader` (`true`, or the same name as `header`): the hook reads the attempt number from
 * that header on the outgoing request and, unless `keepHeader`, removes the header before anything
 * is written to the socket.
 *
 * The instrumentation calls the hook synchronously inside `http.request()`, before axios writes
 * the request, so the header never leaves the process. A request the instrumentation does not
 * trace is sent with the header: one `ignoreOutgoingRequestHook` skips, any request while the
 * instrumentation is disabled, and every request of axios's `fetch` adapter (which
 * instrumentation-http does not see). A redirect axios follows within an attempt is a span of its
 * own with that attempt's count.
 *
 * With a `requestHook` of your own, call this one from it:
 * `const count = resendCountHook();` and `requestHook: (span, req) => { count(span, req); … }`.
 */
export function resendCountHook(options: ResendCountHookOptions = {}): ResendCountHook {
  const header = options.header ?? DEFAULTS.attemptHeaderName;
  const keep = options.keepHeader ?? false;
  if (typeof header !== 'string' || !HEADER_NAME.test(header)) {
    throw new TypeError(
      `resendCountHook: header must be a header name such as "X-Retry-Attempt", got ${typed(header)}`,
    );
  }
  if (typeof keep !== 'boolean')
    throw new TypeError(`resendCountHook: keepHeader must be a boolean, got ${typed(keep)}`);
  return (span, request) => {
    // A server span's request is an IncomingMessage: no getHeader, and not ours to count.
    if (typeof (request as Partial<OutgoingRequest>).getHeader !== 'function') return;
    const outgoing = request as OutgoingRequest;
    const value = outgoing.getHeader(header);
    if (value === undefined) return;
    if (!keep && !outgoing.headersSent) outgoing.removeHeader(header);
    // '3', '3; hedge' for a hedged copy, '3; chaos' (or '3; hedge; chaos') for an answer chaos drops.
    const [count, ...markers] = String(Array.isArray(value) ? value[0] : value)
      .split(';')
      .map((part) => part.trim());
    const attempt = Number(count);
    // The conventions set the count on resends only: attempt 2 is resend 1.
    if (Number.isInteger(attempt) && attempt >= 2) span.setAttribute(RESEND_COUNT_ATTRIBUTE, attempt - 1);
    if (markers.includes('hedge')) span.setAttribute(HEDGE_ATTRIBUTE, true);
    if (markers.includes('chaos')) span.setAttribute(CHAOS_ATTRIBUTE, true);
  };
}
