type Listener = (...args: any[]) => void; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * As much of Node's EventEmitter as the breakers and their users call: `on` (announced to
 * `newListener` listeners first, as Node does), `once`, `removeListener` / `off`, `emit`,
 * `listenerCount` and `removeAllListeners`. No `node:events` in a browser bundle, no warning past
 * ten listeners. Listeners run in the order they were added; one added or removed during an
 * `emit` takes effect from the next.
 */
export class Emitter {
  private readonly events = new Map<string | symbol, Listener[]>();

  on(event: string | symbol, listener: Listener): this {
    if (this.events.has('newListener')) this.emit('newListener', event, listener);
    const list = this.events.get(event);
    if (list === undefined) this.events.set(event, [listener]);
    else list.push(listener);
    return this;
  }

  addListener(event: string | symbol, listener: Listener): this {
    return this.on(event, listener);
  }

  once(event: string | symbol, listener: Listener): this {
    const once = Object.assign(
      (...args: unknown[]): void => {
        this.removeListener(event, once);
        listener(...args);
      },
      { listener },
    );
    return this.on(event, once);
  }

  /** Removes `listener`, or the `once` wrapper around it, as Node does. */
  removeListener(event: string | symbol, listener: Listener): this {
    const list = this.events.get(event);
    const at = list?.findIndex((l) => l === listener || (l as { listener?: Listener }).listener === listener) ?? -1;
    if (at >= 0) list!.splice(at, 1);
    if (list?.length === 0) this.events.delete(event);
    return this;
  }

  off(event: string | symbol, listener: Listener): this {
    return this.removeListener(event, listener);
  }

  removeAllListeners(event?: string | symbol): this {
    if (event === undefined) this.events.clear();
    else this.events.delete(event);
    return this;
  }

  listenerCount(event: string | symbol, listener?: Listener): number {
    const list = this.events.get(event) ?? [];
    return listener === undefined ? list.length : list.filter((l) => l === listener).length;
  }

  emit(event: string | symbol, ...args: unknown[]): boolean {
    const list = this.events.get(event);
    if (list === undefined) return false;
    for (const listener of list.slice()) listener(...args);
    return true;
  }
}
