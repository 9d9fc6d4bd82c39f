import { StoreHealth, warnOnce } from '../guards/store-health';
import type { BreakerSync, StoreEvent } from '../types';
import type { RedisClient, RedisSubscriber } from './client';

export interface RedisBreakerSyncOptions {
  /**
   * Prefix of the channel and keys; processes that should share breaker state use the same one.
   * @default 'axios-resilience:'
   */
  prefix?: string;
  /**
   * How long a Redis command may take before the process decides alone, in ms.
   * @default 100
   */
  timeoutMs?: number;
  /**
   * Told once when Redis fails, and once when it answers again.
   * @default a console.warn line
   */
  onStoreEvent?: (event: StoreEvent) => void;
}

interface Announcement {
  origin: string;
  state: 'open' | 'closed';
  from: string;
  /** The open-state wait the announcing process chose, so the fleet backs off together. */
  waitMs?: number;
}

/**
 * Shares breaker state through Redis pub/sub: `breaker: { shared: redisBreakerSync(redis) }`.
 * An open breaker is announced on a channel (and kept in a key that expires with the reset
 * period), so the other processes open theirs within a round trip; a half-open probe is claimed
 * with `SET NX`, so one process probes for the whole fleet. When Redis is down every process
 * behaves as if alone.
 */
export function redisBreakerSync(client: RedisClient, options: RedisBreakerSyncOptions = {}): BreakerSync {
  const prefix = options.prefix ?? 'axios-resilience:';
  const channel = `${prefix}breaker`;
  const health = new StoreHealth(
    options.timeoutMs ?? 100,
    options.onStoreEvent ?? warnOnce('breaker state store', 'breakers are per process'),
  );
  // Tells this process's own announcements apart when they come back on the channel.
  const self = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  let subscriber: RedisSubscriber | undefined;

  const guarded = async <T>(command: () => Promise<T>, fallback: T): Promise<T> => {
    if (!health.usable(client.status === undefined || client.status === 'ready')) return fallback;
    try {
      return await health.ask(command());
    } catch {
      return fallback;
    }
  };

  return {
    start(apply) {
      subscriber = client.duplicate();
      subscriber.on('error', () => undefined); // reconnects by itself; commands above report trouble
      subscriber.on('message', (from, message) => {
        if (from !== channel) return;
        let note: Announcement;
        try {
          note = JSON.parse(message) as Announcement;
        } catch {
          return;
        }
        if (note.from === self || typeof note.origin !== 'string') return;
        const waitMs = typeof note.waitMs === 'number' && note.waitMs > 0 ? note.waitMs : undefined;
        if (note.state === 'open' || note.state === 'closed') apply(note.origin, note.state, waitMs);
      });
      // A client without an offline queue refuses commands until it is connected; ioredis
      // re-subscribes by itself after any later reconnect.
      const current = subscriber;
      const subscribe = (): void => void current.subscribe(channel).catch(() => undefined);
      if (current.status === undefined || current.status === 'ready') subscribe();
      else current.once('ready', subscribe);
    },
    announce(origin, state, resetTimeoutMs) {
      const note = JSON.stringify({ origin, state, from: self, waitMs: resetTimeoutMs } satisfies Announcement);
      void guarded(async () => {
        if (state === 'open') await client.set(`${prefix}open:${origin}`, self, 'PX', Math.max(1, resetTimeoutMs));
        else await client.del(`${prefix}open:${origin}`);
        await client.publish(channel, note);
      }, undefined);
    },
    acquireProbe(origin, ttlMs) {
      return guarded(
        async () => (await client.set(`${prefix}probe:${origin}`, self, 'PX', Math.max(1, ttlMs), 'NX')) === 'OK',
        true,
      );
    },
    async close() {
      const current = subscriber;
      subscriber = undefined;
      if (current) await current.quit().catch(() => current.disconnect());
    },
  };
}
