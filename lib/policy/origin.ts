/** Per-origin bookkeeping: what an origin is, and a bounded map keyed by it. */

const ABSOLUTE = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)(?::(\d*))?/i;
const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443', ws: '80', wss: '443' };

// Most clients call one origin over and over, usually as the same baseURL: the last string parsed and
// its origin are kept, so a repeat costs a string compare, and budgets and breakers are looked up
// with the very string object used last time.
let lastText = '';
let lastOrigin = '';

/** `scheme://host:port` of an absolute URL, or `undefined` for a relative one. */
export function absoluteOrigin(text: string): string | undefined {
  if (text === lastText) return lastOrigin;
  // A path ('/v1/x', the common url next to a baseURL) cannot be absolute.
  if (text.charCodeAt(0) === 47) return undefined;
  const match = ABSOLUTE.exec(text);
  if (match === null) return undefined;
  const scheme = match[1]!.toLowerCase();
  const port = match[3] || DEFAULT_PORTS[scheme] || '';
  lastText = text;
  lastOrigin = `${scheme}://${match[2]!.toLowerCase()}:${port}`;
  return lastOrigin;
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
  const origin = url !== undefined && url.includes('://') ? absoluteOrigin(url) : undefined;
  return origin ?? (baseURL === undefined ? undefined : absoluteOrigin(baseURL)) ?? pageOrigin() ?? 'relative:';
}

/**
 * A Map that keeps at most `limit` entries, dropping the least recently used one (and handing it
 * to `onEvict`, so a breaker can be shut down). URLs built from user input must not grow memory.
 */
export class BoundedMap<V> {
  private readonly entries = new Map<string, V>();
  // Most clients call one origin over and over. The entry used last is already the most recent in
  // LRU order, so for it the touch (a Map delete and set on every call) is skipped.
  private lastKey: string | undefined;
  private lastValue: V | undefined;

  constructor(
    private readonly limit: number,
    private readonly onEvict?: (value: V, key: string) => void,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value for `key`, made by `create(key)` on first use; marks it most recently used. */
  getOrCreate(key: string, create: (key: string) => V): V {
    if (key === this.lastKey) return this.lastValue!;
    const entries = this.entries;
    let value = entries.get(key);
    if (value !== undefined) {
      // Re-inserting moves the key to the end of the Map's insertion order, which is the LRU order.
      entries.delete(key);
    } else {
      value = create(key);
    }
    entries.set(key, value);
    this.lastKey = key;
    this.lastValue = value;
    if (entries.size > this.limit) {
      const oldest = entries.keys().next().value as string;
      const evicted = entries.get(oldest)!;
      entries.delete(oldest);
      this.onEvict?.(evicted, oldest);
    }
    return value;
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  values(): IterableIterator<V> {
    return this.entries.values();
  }

  keys(): IterableIterator<string> {
    return this.entries.keys();
  }

  clear(): void {
    this.entries.clear();
    this.lastKey = undefined;
    this.lastValue = undefined;
  }
}
