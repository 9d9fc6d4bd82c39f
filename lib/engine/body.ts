import type { AxiosAdapter, InternalAxiosRequestConfig } from 'axios';
import { isStream } from '../policy/classify';
import { pinnedOverHttp } from './node-form';
import { recorderFor } from './recording';
import { notABody } from '../policy/misuse';
import type { Recording } from './recording';

/**
 * Bodies: the first attempt sends what plain axios would send, and every retry sends the same
 * bytes again, or the call stops rather than send a truncated or empty retry.
 *
 * - Bytes (strings, Buffers, ArrayBuffers, typed arrays, URLSearchParams after axios's transform)
 *   and Blobs can be sent again as they are.
 * - A WHATWG `FormData`: axios's adapters would draw a new multipart boundary on every send, so two
 *   attempts would carry different bytes under one key. Over axios's http adapter the plugin pins
 *   the boundary (axios's own encoder then writes the same bytes every time); elsewhere it encodes
 *   the form once with the platform's encoder (`Response`, which is what fetch and XHR use).
 * - A stream (a Node Readable, a `form-data` object, a web ReadableStream) is read as it is sent
 *   and its bytes kept, up to `replay.maxBytes`: a retry sends them again. Beyond the bound the
 *   first attempt is streamed unchanged, and a failure stops with `body-not-replayable`.
 * - A body factory (`config.retry.body`) makes each retry's body afresh, for uploads too big to keep.
 */

/** A WHATWG `FormData` (Node's undici one, a browser's), as axios's `isSpecCompliantForm` tells it. */
function isSpecFormData(data: unknown): data is FormData {
  if (data === null || typeof data !== 'object') return false;
  const form = data as {
    [Symbol.toStringTag]?: unknown;
    [Symbol.iterator]?: unknown;
    append?: unknown;
    pipe?: unknown;
  };
  // The `form-data` package's object has the same tag and an `append`, but it is a stream with no
  // entries to iterate: `Response` would encode it as the 17 bytes `[object FormData]`.
  return (
    form[Symbol.toStringTag] === 'FormData' &&
    typeof form.append === 'function' &&
    typeof form[Symbol.iterator] === 'function' &&
    typeof form.pipe !== 'function'
  );
}

/** Whether a body needs the plugin before its first attempt (a form to fix, a stream to record). */
export function needsPreparing(data: unknown, retries: number): boolean {
  // No body, or a string or buffer-like primitive: most calls, decided without a look inside.
  if (data === undefined || data === null || typeof data !== 'object') return false;
  return isSpecFormData(data) || (retries > 0 && isStream(data));
}

/** The bytes a form holds, roughly (strings and Blob sizes): whether encoding it once fits the bound. */
function formSize(form: FormData): number {
  let size = 0;
  for (const [name, value] of form as unknown as Iterable<[string, string | Blob]>) {
    size += name.length + (typeof value === 'string' ? value.length : value.size);
  }
  return size;
}

/**
 * Fixes a WHATWG `FormData` body so every attempt sends the same bytes. Over axios's http adapter:
 * a pinned boundary, and axios encodes it each time (Blob parts are read again, nothing is kept).
 * Elsewhere: encoded once by the platform, up to `maxBytes`; a bigger form is sent as it is, and a
 * retry sends the same parts under a new boundary.
 */
async function fixForm(config: InternalAxiosRequestConfig, base: AxiosAdapter, maxBytes: number): Promise<void> {
  const form = config.data as FormData;
  if (pinnedOverHttp(config, base)) return;
  if (typeof Response !== 'function' || formSize(form) > maxBytes) return;
  const encoded = new Response(form);
  const type = encoded.headers.get('content-type');
  config.data = await encoded.arrayBuffer();
  if (type !== null) config.headers.set('Content-Type', type);
}

/** What a call's body needs between its attempts. */
export class BodyPlan {
  private recording: Recording | undefined;
  /** `Content-Type` and `Content-Length` before the first attempt (an adapter writes its own into `config.headers`). */
  private headers: { type: unknown; length: unknown } | undefined;
  /** A body factory makes each retry's body (`make`); else a recorded stream is replayed (`replay`). */
  readonly made: boolean;

  constructor(
    private readonly config: InternalAxiosRequestConfig,
    private readonly maxBytes: number,
    private readonly factory: (() => unknown) | undefined,
  ) {
    this.made = factory !== undefined;
  }

  /** Before the first attempt: fix a form, start recording a stream. */
  async prepare(base: AxiosAdapter, retries: number): Promise<void> {
    const { config } = this;
    if (this.factory !== undefined) {
      this.headers = { type: config.headers.get('Content-Type'), length: config.headers.get('Content-Length') };
    } else if (isSpecFormData(config.data)) {
      await fixForm(config, base, this.maxBytes);
    } else if (retries > 0 && isStream(config.data)) {
      this.recording = recorderFor(config.data, this.maxBytes);
      config.data = this.recording.body;
    }
  }

  /** Whether the body can be sent again: a stream is read to its end first (up to the bound). */
  async replayable(): Promise<boolean> {
    if (this.factory !== undefined) return true;
    if (this.recording !== undefined) return this.recording.complete();
    return !isStream(this.config.data);
  }

  /** Puts the recorded bytes on the config again, for the next attempt (nothing for a body that is no stream). */
  replay(): void {
    if (this.recording !== undefined) this.config.data = this.recording.replay();
  }

  /**
   * Puts the factory's new body on the config (with the `Content-Type` and `Content-Length` the
   * request had before its first attempt, so the adapter writes the new body's own). Throws what
   * the factory throws, or a `TypeError` when it returns something that is not a body.
   */
  async make(): Promise<void> {
    const { config } = this;
    const body: unknown = await this.factory!();
    if (!isBody(body)) notABody(body);
    config.data = body;
    for (const [name, value] of [
      ['Content-Type', this.headers!.type],
      ['Content-Length', this.headers!.length],
    ] as const) {
      if (value === undefined || value === null) config.headers.delete(name);
      else config.headers.set(name, value as string);
    }
  }

  /** The call ended: a web stream the plugin still holds is cancelled, as fetch would have done. */
  release(): void {
    this.recording?.release();
  }
}

/** What an adapter can send. */
function isBody(value: unknown): boolean {
  if (typeof value === 'string') return true;
  if (value === null || typeof value !== 'object') return false;
  return (
    ArrayBuffer.isView(value) ||
    value instanceof ArrayBuffer ||
    isStream(value) ||
    isSpecFormData(value) ||
    (typeof Blob === 'function' && value instanceof Blob) ||
    (typeof URLSearchParams === 'function' && value instanceof URLSearchParams) ||
    (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'FormData'
  );
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
