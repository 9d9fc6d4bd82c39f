/**
 * The one clock every breaker's rolling window turns on. opossum (and the browser build's
 * `lite-circuit.ts`) need only `on`, `removeListener` and `listenerCount` from their
 * `rotateBucketController`; this is that much of an EventEmitter, without pulling `node:events` into
 * browser bundles or warning past ten listeners.
 */
export class Rotation {
  private readonly listeners = new Set<() => void>();
  on(_event: string, listener: () => void): this {
    this.listeners.add(listener);
    return this;
  }
  removeListener(_event: string, listener: () => void): this {
    this.listeners.delete(listener);
    return this;
  }
  listenerCount(_event: string, listener?: () => void): number {
    return listener === undefined ? this.listeners.size : this.listeners.has(listener) ? 1 : 0;
  }
  emit(): void {
    for (const listener of this.listeners) listener();
  }
}
