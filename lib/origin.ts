/** Per-origin bookkeeping: what an origin is, and a bounded map keyed by it. */

const ABSOLUTE = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)(?::(\d*))?/i;
const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443', ws: '80', wss: '443' };

// The raw text the last match covered (`scheme://[userinfo@]host[:port]`) and the origin made from
// it. Most clients call one origin over and over: a URL that starts with that text, followed by
// the end, `/`, `?` or `#`, would match the regex on exactly that text again, so the regex, the
// lower-casing and the new string are skipped, and budgets and breakers are looked up with the
// same string object as last time (a pointer compare in BoundedMap).
let lastText = '';
let lastOrigin = '';

function absoluteOrigin(text: string): string | undefined {
  if (lastText !== '' && text.startsWith(lastText)) {
    const next = text.charCodeAt(lastText.length);
    // NaN: the text ends there. 47 '/', 63 '?', 35 '#'.
    if (next !== next || next === 47 || next === 63 || next === 35) return lastOrigin;
  }
  // A scheme starts with a letter; a path-relative URL ('/v1/x', the common case) cannot match.
  if (text.charCodeAt(0) === 47) return undefined;
  const match = ABSOLUTE.exec(text);
  if (match === null) return undefined;
  const scheme = match[1]!.toLowerCase();
  const host = match[2]!.toLowerCase();
  const port = match[3] || DEFAULT_PORTS[scheme] || '';
  const origin = `${scheme}://${host}:${port}`;
  // Not for an unclosed '[': in a longer URL the regex could match a bracketed host instead.
  if (host.charCodeAt(0) !== 91 || host.endsWith(']')) {
    lastText = match[0];
    lastOrigin = origin;
  }
  return origin;
}

/**
 * `scheme://host:port` of a request, the unit budgets and breakers are kept per. A relative URL
 * with no base (a browser calling its own host) belongs to the page's origin.
 */
export function originOf(url: string | undefined, baseURL: string | undefined): string {
  const origin = absoluteOrigin(url ?? '') ?? (baseURL === undefined ? undefined : absoluteOrigin(baseURL));
  if (origin !== undefined) return origin;
  const location = (globalThis as { location?: { origin?: string } }).location;
  return location?.origin ?? 'relative:';
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

  /** The value for `key`, made by `create` on first use; marks it most recently used. */
  getOrCreate(key: string, create: () => V): V {
    if (key === this.lastKey) return this.lastValue!;
    const entries = this.entries;
    let value = entries.get(key);
    if (value !== undefined) {
      // Re-inserting moves the key to the end of the Map's insertion order, which is the LRU order.
      entries.delete(key);
    } else {
      value = create();
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
