import type { InternalAxiosRequestConfig } from 'axios';

/**
 * Bodies: every attempt of a call sends the same bytes, and a failed attempt's response body is
 * released before the next one.
 */

/**
 * A WHATWG `FormData` (Node's undici one, a browser's): axios's adapters draw a new multipart
 * boundary for it on every send, so two attempts would carry different bytes under one key.
 *
 * The `form-data` package's object (what axios itself builds in Node for `postForm` and for an
 * object sent as `multipart/form-data`) has the same tag and an `append` too, but it is a stream
 * with no entries to iterate: `Response` cannot encode it (it would send the 17 bytes
 * `[object FormData]`), and axios's http adapter pipes it as it is. So, as axios's own
 * `isSpecCompliantForm` does, a spec form must be iterable, and a stream never is one.
 */
function isSpecFormData(data: unknown): data is FormData {
  if (data === null || typeof data !== 'object') return false;
  const form = data as {
    [Symbol.toStringTag]?: unknown;
    [Symbol.iterator]?: unknown;
    append?: unknown;
    pipe?: unknown;
  };
  return (
    form[Symbol.toStringTag] === 'FormData' &&
    typeof form.append === 'function' &&
    typeof form[Symbol.iterator] === 'function' &&
    typeof form.pipe !== 'function' &&
    typeof Response === 'function'
  );
}

/** Whether the body must be fixed to bytes before the first attempt (see `fixBody`). */
export function needsFixedBody(data: unknown): boolean {
  return isSpecFormData(data);
}

/**
 * Encodes a `FormData` body once, with the platform's own encoder (`Response`, in Node and in
 * browsers), and puts the bytes and their `Content-Type` (with its boundary) on the config, so every
 * attempt sends identical bytes and headers; `Blob` and `File` parts are read once here.
 */
export async function fixBody(config: InternalAxiosRequestConfig): Promise<void> {
  const encoded = new Response(config.data as FormData);
  const type = encoded.headers.get('content-type');
  config.data = await encoded.arrayBuffer();
  if (type !== null) config.headers.set('Content-Type', type);
}

/**
 * Releases the body of a response the caller will never see (a failed attempt that is retried):
 * with `responseType: 'stream'` it would otherwise hold its socket open until the server gives up.
 */
export function releaseBody(error: unknown): void {
  const data = (error as { response?: { data?: unknown } } | null)?.response?.data;
  if (data === null || typeof data !== 'object') return;
  if (typeof (data as { destroy?: unknown }).destroy === 'function') {
    (data as { destroy(): void }).destroy();
  } else if (typeof ReadableStream !== 'undefined' && data instanceof ReadableStream) {
    data.cancel().catch(() => undefined);
  }
}
