/** Per-origin bookkeeping: a map keyed by origin (or breaker key) that cannot grow without bound. */

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
  // Finds the least recently used key. A Map keeps deleted entries as holes until it rehashes, and
  // evicting the oldest key one at a time leaves them all at the front, so a fresh `keys()` per
  // eviction would step over up to a table's worth of holes each time (~2 µs at 1,000 origins). A
  // Map iterator is live: kept, it resumes where it stopped, and every key before it has been
  // evicted or moved to the end by a touch, so its next key is the oldest.
  private cursor: IterableIterator<string> | undefined;

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
      const oldest = this.oldest();
      const evicted = entries.get(oldest)!;
      entries.delete(oldest);
      this.onEvict?.(evicted, oldest);
    }
    return value;
  }

  private oldest(): string {
    let step = (this.cursor ??= this.entries.keys()).next();
    // An iterator that once reached the end stays there: start a new one.
    if (step.done === true) step = (this.cursor = this.entries.keys()).next();
    return step.value as string;
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
    this.cursor = undefined;
    this.lastKey = undefined;
    this.lastValue = undefined;
  }
}

/** A route's path with its folded ids (`:`, `policy/scope.ts`) as a pattern the paths of its URLs match. */
export function routePattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:/g, '[^/]+')}$`);
}
