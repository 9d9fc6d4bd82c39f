import type { InternalAxiosRequestConfig } from 'axios';

/**
 * The scopes a throttle or a failure can speak for, narrower than an origin: a route (the method and
 * the path with its ids folded: `GET /repos/o/r/issues/:`), and within a route the model a request
 * names in its JSON body (Anthropic and OpenAI limit each model apart). GitHub's quota resources
 * (`core`, `search`, …) are named by the server on its answers (`Answer.resource`).
 */

/** A path segment that is an id: a number, a UUID, a long hex or opaque token. */
const ID = /^(?:\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{12,}|[A-Za-z0-9_-]{24,})$/i;

/** The path of a request, without its query or fragment (`/v1/items/42`). */
export function pathOf(config: Pick<InternalAxiosRequestConfig, 'url' | 'baseURL'>): string {
  const url = config.url ?? '';
  const base = config.baseURL;
  const full =
    /^[a-z][a-z0-9+.-]*:\/\//i.test(url) || !base ? url : `${base.replace(/\/+$/, '')}/${url.replace(/^\/+/, '')}`;
  const path = full.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/)[0]!;
  return path.startsWith('/') ? path : `/${path}`;
}

/** The route of a request: its method and its path with ids folded, `GET /v1/items/:`. */
export function routeOf(method: string, config: Pick<InternalAxiosRequestConfig, 'url' | 'baseURL'>): string {
  const segments = pathOf(config).split('/');
  for (let i = 0; i < segments.length; i++) if (ID.test(segments[i]!)) segments[i] = ':';
  return `${method} ${segments.join('/')}`;
}

const MODEL = /"model"\s*:\s*"([^"\\]{1,120})"/;

/**
 * The model a request names, when its body is JSON with a `"model"` field (the first one: a
 * request's own model comes before its messages). Read only for a route that has been throttled
 * per model, and only from a body axios has already made a string.
 */
export function modelOf(data: unknown): string | undefined {
  if (typeof data !== 'string' || data.charCodeAt(0) !== 123) return undefined;
  return MODEL.exec(data.length > 4096 ? data.slice(0, 4096) : data)?.[1];
}
