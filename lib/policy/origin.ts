/** What an origin is: `scheme://host:port`, the unit budgets and breakers are kept per. */

const ABSOLUTE = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)(?::(\d*))?/i;
const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443', ws: '80', wss: '443' };

// Most clients call one origin over and over, usually as the same baseURL: the last string parsed and
// its origin are kept, so a repeat costs a string compare, and budgets and breakers are looked up
// with the very string object used last time.
let lastText: string | undefined;
let lastOrigin = '';

/**
 * `scheme://host:port` of an absolute URL, or `undefined` for a relative one. `keep: false` for a
 * URL that is not the one calls are made with (a redirect's): it must not take the cache's one entry.
 */
export function absoluteOrigin(text: string, keep = true): string | undefined {
  if (text === lastText) return lastOrigin;
  // A path ('/v1/x', the common url next to a baseURL) cannot be absolute.
  if (text.charCodeAt(0) === 47) return undefined;
  const match = ABSOLUTE.exec(text);
  if (match === null) return undefined;
  const scheme = match[1]!.toLowerCase();
  const port = match[3] || DEFAULT_PORTS[scheme] || '';
  const origin = `${scheme}://${match[2]!.toLowerCase()}:${port}`;
  if (keep) {
    lastText = text;
    lastOrigin = origin;
  }
  return origin;
}

/** The page's origin in a browser (window or worker), written as `originOf` writes origins; `undefined` in Node. */
export function pageOrigin(): string | undefined {
  const page = (globalThis as { location?: { origin?: unknown } }).location?.origin;
  // Through the one-entry cache: a page calling relative URLs asks for this on every call.
  return typeof page === 'string' ? absoluteOrigin(page) : undefined;
}

/**
 * `scheme://host:port` of a request, the unit budgets and breakers are kept per. A relative URL
 * with no base (a browser calling its own host) belongs to the page's origin, written the same way
 * as an absolute URL to it (default port included).
 */
export function originOf(url: string | undefined, baseURL: string | undefined): string {
  // A URL without `://` ('/v1/x', 'v1/x', the usual url next to a baseURL) is relative: no regex.
  const absolute = url !== undefined && url.includes('://');
  // The one-entry cache, looked at here first: the same URL or baseURL as last time.
  const text = absolute ? url : baseURL;
  if (text !== undefined && text === lastText) return lastOrigin;
  const origin = absolute ? absoluteOrigin(url) : undefined;
  return origin ?? (baseURL === undefined ? undefined : absoluteOrigin(baseURL)) ?? pageOrigin() ?? 'relative:';
}
