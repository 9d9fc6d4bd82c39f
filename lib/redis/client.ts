import { createHash } from 'node:crypto';

/**
 * The few Redis commands fleet mode uses, as ioredis (^5) spells them. Typed structurally so this
 * package never imports ioredis: the caller passes in the client it already has, a `Redis` or a
 * `Redis.Cluster`.
 */
export interface RedisClient {
  /** ioredis connection state; `'ready'` when commands will be answered. */
  readonly status?: string;
  evalsha(sha: string, numberOfKeys: number, ...args: Array<string | number>): Promise<unknown>;
  eval(script: string, numberOfKeys: number, ...args: Array<string | number>): Promise<unknown>;
  set(key: string, value: string, px: 'PX', ms: number, nx: 'NX'): Promise<unknown>;
  set(key: string, value: string, px: 'PX', ms: number): Promise<unknown>;
  del(key: string): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
  /** A second connection for subscribing (a subscribed connection can do nothing else). */
  duplicate(): RedisSubscriber;
}

export interface RedisSubscriber {
  readonly status?: string;
  subscribe(channel: string): Promise<unknown>;
  once(event: 'ready', listener: () => void): unknown;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}

/**
 * Runs a Lua script by `EVALSHA`, and by `EVAL` on the node that answers `NOSCRIPT`.
 *
 * The script is never loaded with `SCRIPT LOAD`: on a Redis Cluster that command goes to one node
 * while `EVALSHA` goes to the node that owns the key, so a loaded script is still unknown where it
 * runs. `EVAL` both runs the script and caches it on the node that ran it, so the first call on each
 * node (and the first after a restart, a failover or a `SCRIPT FLUSH`) costs one round trip more,
 * and the next calls there find it. The SHA-1 is Redis's own name for the script, computed here.
 *
 * A script that touches several keys must name them all in `keys`, with one `{hash tag}` so that a
 * cluster keeps them in one slot.
 */
export class Script {
  private readonly sha: string;

  constructor(
    private readonly client: RedisClient,
    private readonly lua: string,
  ) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run(keys: string[], args: Array<string | number>): Promise<unknown> {
    try {
      return await this.client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as Error | undefined)?.message).includes('NOSCRIPT')) throw error;
      return this.client.eval(this.lua, keys.length, ...keys, ...args);
    }
  }
}

/** Whether a connection will answer commands now (a client without `status` is taken as ready). */
export function isReady(connection: { readonly status?: string }): boolean {
  return connection.status === undefined || connection.status === 'ready';
}

/** A name for this process among the fleet's, so it can tell its own announcements when they come back. */
export function selfId(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/**
 * Listens for the fleet's JSON announcements on `channel`, over a second connection (a subscribed
 * connection can do nothing else): `onNote` gets each other process's note (`from` is not `self`);
 * text that is not a JSON object is ignored. ioredis reconnects and re-subscribes by itself; a client
 * without an offline queue is subscribed once it is ready. The function returned quits it (and drops
 * the connection if QUIT goes unanswered for a second); calling it again waits for the same quit.
 */
export function listen(
  client: RedisClient,
  channel: string,
  self: string,
  onNote: (note: Record<string, unknown>) => void,
): () => Promise<void> {
  const subscriber = client.duplicate();
  subscriber.on('error', () => undefined); // reconnects by itself; the commands report trouble
  subscriber.on('message', (from, message) => {
    if (from !== channel) return;
    let note: unknown;
    try {
      note = JSON.parse(message);
    } catch {
      return;
    }
    if (note !== null && typeof note === 'object' && (note as { from?: unknown }).from !== self) {
      onNote(note as Record<string, unknown>);
    }
  });
  const subscribe = (): void => void subscriber.subscribe(channel).catch(() => undefined);
  if (isReady(subscriber)) subscribe();
  else subscriber.once('ready', subscribe);
  // A Redis that hangs never answers QUIT: the connection is dropped after a while instead, so that
  // `plugin.close()` returns. Quit once, however often the store is closed.
  let stopped: Promise<void> | undefined;
  return () =>
    (stopped ??= (async () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), QUIT_WITHIN_MS)));
      const quit = subscriber.quit().then(
        () => 'quit' as const,
        () => 'failed' as const,
      );
      if ((await Promise.race([quit, late])) !== 'quit') subscriber.disconnect();
      clearTimeout(timer);
    })());
}

/** How long a subscriber's QUIT may go unanswered before its connection is dropped (ms). */
const QUIT_WITHIN_MS = 1000;
