import { StoreHealth, warnOnce } from '../guards/store-health';
import type { BreakerSync, StoreEvent } from '../types';
import { isReady, listen, selfId } from './client';
import type { RedisClient } from './client';

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
  const self = selfId();
  let stopListening: (() => Promise<void>) | undefined;

  const guarded = async <T>(command: () => Promise<T>, fallback: T): Promise<T> => {
    if (!health.usable(isReady(client))) return fallback;
    try {
      return await health.ask(command());
    } catch {
      return fallback;
    }
  };

  return {
    start(apply) {
      stopListening = listen(client, channel, self, (note) => {
        const { origin, state, waitMs } = note as Partial<Announcement>;
        if (typeof origin !== 'string') return;
        const wait = typeof waitMs === 'number' && waitMs > 0 ? waitMs : undefined;
        if (state === 'open' || state === 'closed') apply(origin, state, wait);
      });
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
      await stopListening?.();
    },
  };
}
