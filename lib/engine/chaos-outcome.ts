import { AxiosError, AxiosHeaders, getAdapter } from 'axios';
import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { pageOrigin } from '../policy/origin';
import { destination } from './route';

/**
 * What an injected fault looks like to everything above the adapter: the response, the
 * `AxiosError` or the timeout that the attempt's own adapter would have produced for that failure,
 * field for field, so the decision table (`policy/classify.ts`), the guards, the hooks and the
 * caller's own error handling treat it as they treat the real one.
 */

/** Which of axios's adapters sends the attempt; `other` (a custom adapter) is given the http adapter's errors. */
export type AdapterKind = 'http' | 'fetch' | 'xhr' | 'other';

export function adapterKind(base: AxiosAdapter, config: InternalAxiosRequestConfig): AdapterKind {
  const name = (base as { adapterName?: unknown }).adapterName;
  if (name === 'http' || name === 'xhr') return name;
  try {
    // axios's fetch adapter has no name; it is made once per environment, so it is found by identity.
    if (getAdapter('fetch', config) === base) return 'fetch';
  } catch {
    // No fetch here.
  }
  return 'other';
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/**
 * An injected status as axios's `settle` ends it: the response (the body as the wire carries it,
 * before `transformResponse`), rejected in an `AxiosError` unless `validateStatus` accepts it.
 */
export function statusOutcome(
  status: number,
  headers: Record<string, string>,
  body: unknown,
  config: InternalAxiosRequestConfig,
  request: unknown,
): { response: AxiosResponse } | { error: AxiosError } {
  // Names in lower case, as Node and fetch hand them over (`response.headers['retry-after']`).
  const responseHeaders = new AxiosHeaders();
  for (const [name, value] of Object.entries(headers)) responseHeaders.set(name.toLowerCase(), value);
  const json = body !== undefined && typeof body !== 'string';
  const text = body === undefined ? '' : json ? JSON.stringify(body) : (body as string);
  if (json && !responseHeaders.has('content-type')) responseHeaders.set('content-type', 'application/json');
  const data = config.responseType === 'arraybuffer' ? new TextEncoder().encode(text).buffer : text;
  const response: AxiosResponse = {
    data,
    status,
    statusText: STATUS_TEXT[status] ?? '',
    headers: responseHeaders,
    config,
    request,
  };
  const validate = config.validateStatus;
  if (!validate || validate(status)) return { response };
  const code = status >= 500 ? AxiosError.ERR_BAD_RESPONSE : AxiosError.ERR_BAD_REQUEST;
  return { error: new AxiosError(`Request failed with status code ${status}`, code, config, request, response) };
}

/** The attempt's timeout, as its adapter reports it: fetch says ETIMEDOUT; http and xhr ECONNABORTED, or ETIMEDOUT with `clarifyTimeoutError`. */
export function timeoutError(kind: AdapterKind, config: InternalAxiosRequestConfig, request: unknown): AxiosError {
  const clarify = kind === 'fetch' || config.transitional?.clarifyTimeoutError === true;
  const ms = config.timeout;
  const message =
    (kind !== 'fetch' && config.timeoutErrorMessage) || (ms ? `timeout of ${ms}ms exceeded` : 'timeout exceeded');
  return new AxiosError(message, clarify ? AxiosError.ETIMEDOUT : AxiosError.ECONNABORTED, config, request);
}

/** The socket-level error Node reports for `code`, as its message, syscall and address say. */
function systemError(code: string, config: InternalAxiosRequestConfig): Error {
  const [, host = '', port = ''] = /^[a-z]+:\/\/(.*):(\d*)$/.exec(destination(config)) ?? [];
  const fields: Record<string, unknown> =
    code === 'ECONNRESET'
      ? { message: 'socket hang up' }
      : code === 'EPIPE'
        ? { message: 'write EPIPE', syscall: 'write' }
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? { message: `getaddrinfo ${code} ${host}`, syscall: 'getaddrinfo', hostname: host }
          : { message: `connect ${code} ${host}:${port}`, syscall: 'connect', address: host, port: Number(port) };
  const { message, ...rest } = fields;
  return Object.assign(new Error(message as string), { code }, rest);
}

/** What fetch gives as the cause of the network failure `code`: undici's error, or a browser's bare `TypeError`. */
function fetchCause(code: string, config: InternalAxiosRequestConfig): Error {
  // A browser's fetch, like its xhr, says no more than that it failed (Chromium: "Failed to fetch").
  if (pageOrigin() !== undefined) return new TypeError('Failed to fetch');
  if (code === 'ERR_NETWORK') return new TypeError('fetch failed');
  if (code !== 'ECONNRESET' && code !== 'EPIPE') return systemError(code, config);
  return Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' });
}

/**
 * The error the attempt's adapter makes for the network failure `code`: over http (and a custom
 * adapter) an `AxiosError` with that code and Node's error as its cause; over fetch `ERR_NETWORK`
 * with undici's cause (a dropped connection is `UND_ERR_SOCKET`, "other side closed"); over xhr a
 * bare `ERR_NETWORK`, and over a browser's fetch `ERR_NETWORK` with its `TypeError`, as a browser
 * tells no more. Timeouts are each adapter's own timeout error.
 */
export function networkFailure(
  code: string,
  kind: AdapterKind,
  config: InternalAxiosRequestConfig,
  request: unknown,
): AxiosError {
  if (code === 'ECONNABORTED' || (code === 'ETIMEDOUT' && (kind === 'fetch' || kind === 'xhr'))) {
    return timeoutError(kind, config, request);
  }
  if (code !== 'ERR_NETWORK' && (kind === 'http' || kind === 'other')) {
    return AxiosError.from(systemError(code, config), code, config, request);
  }
  const error = new AxiosError('Network Error', AxiosError.ERR_NETWORK, config, request);
  // fetch's cause is non-enumerable, as axios sets it.
  if (kind === 'fetch') {
    const cause = fetchCause(code, config);
    Object.defineProperty(error, 'cause', { value: cause, writable: true, enumerable: false, configurable: true });
  }
  return error;
}
