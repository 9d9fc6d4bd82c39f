import axios, { getAdapter } from 'axios';
import type { AxiosAdapter, InternalAxiosRequestConfig } from 'axios';
import { innerAdapter } from './chaos-mark';

/**
 * A WHATWG `FormData` over axios's http adapter (Node), which draws a new multipart boundary on
 * every send: the plugin pins one, and axios's own encoder then writes the same bytes on every
 * attempt (`body.ts`). The browser build, whose axios has no http adapter, carries
 * `browser/node-form.ts` instead.
 */

let httpAdapter: AxiosAdapter | null | undefined;
/** axios's own http adapter, when this build has one (Node). */
function axiosHttpAdapter(): AxiosAdapter | null {
  if (httpAdapter === undefined) {
    try {
      httpAdapter = getAdapter('http');
    } catch {
      httpAdapter = null;
    }
  }
  return httpAdapter;
}

const BOUNDARY_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_';

const BOUNDARY_TAG = 'axios-resilience-boundary-';

/**
 * A boundary for axios's http adapter to use on every attempt. It reads a caller's boundary with
 * `/boundary=([-_\w\d]{10,70})/`, so the boundary holds only those characters (no dots). It is as
 * long as the one axios draws (`axios-<VERSION>-boundary-` and 25 characters): the body, and so its
 * Content-Length, is then as long as plain axios's (a longer boundary made it 4 bytes longer per part).
 */
function pinnedBoundary(): string {
  const axiosLength = `axios-${axios.VERSION}-boundary-`.length + 25;
  const bytes = new Uint8Array(Math.max(20, axiosLength - BOUNDARY_TAG.length));
  globalThis.crypto.getRandomValues(bytes);
  let tail = '';
  for (const byte of bytes) tail += BOUNDARY_ALPHABET[byte % BOUNDARY_ALPHABET.length];
  return BOUNDARY_TAG + tail;
}

/**
 * Pins the boundary of `config`'s form when `base` sends through axios's http adapter, and says so
 * (`false`: another adapter, which gets the form encoded once instead). A boundary the caller set is
 * axios's to keep; the plugin only pins one where axios would draw it.
 */
export function pinnedOverHttp(config: InternalAxiosRequestConfig, base: AxiosAdapter): boolean {
  if (innerAdapter(base) !== axiosHttpAdapter()) return false;
  if (!/boundary=/i.test(String(config.headers.getContentType() ?? ''))) {
    config.headers.setContentType(`multipart/form-data; boundary=${pinnedBoundary()}`);
  }
  return true;
}
