import { BUDGET_SLOTS } from '../guards/local-budget';
import type { BudgetSettings, BudgetStore } from '../types';
import { isReady, Script } from './client';
import type { RedisClient } from './client';

/**
 * The shared budget lives in one Redis hash per prefix: fields `d<slot>` (first attempts) and
 * `w<slot>` (retries granted) for the slots of the last window, slots cut from Redis's own clock so
 * every process agrees on them. Each script call also deletes the window before the current one
 * and pushes the hash's expiry out, so an idle budget disappears by itself.
 *
 * KEYS[1] hash; ARGV: slot length ms, slots per window, expiry ms, then per script below.
 */
const PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local slotMs = tonumber(ARGV[1])
local slots = tonumber(ARGV[2])
local slot = math.floor(now / slotMs)
for s = slot - 2 * slots, slot - slots do
  redis.call('HDEL', KEYS[1], 'd' .. s, 'w' .. s)
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
`;

// ARGV[4]: first attempts to add.
const DEPOSIT = `${PRELUDE}
redis.call('HINCRBY', KEYS[1], 'd' .. slot, tonumber(ARGV[4]))
return 1`;

// ARGV[4]: ratio; ARGV[5]: floor (minPerSecond × window). Grants one retry when the window has one.
const WITHDRAW = `${PRELUDE}
local deposits, retries = 0, 0
for s = slot - slots + 1, slot do
  deposits = deposits + (tonumber(redis.call('HGET', KEYS[1], 'd' .. s)) or 0)
  retries = retries + (tonumber(redis.call('HGET', KEYS[1], 'w' .. s)) or 0)
end
if tonumber(ARGV[4]) * deposits + tonumber(ARGV[5]) - retries + 1e-9 >= 1 then
  redis.call('HINCRBY', KEYS[1], 'w' .. slot, 1)
  return 1
end
return 0`;

// Gives back one grant that was never sent: from the newest slot of the window that holds one.
const REFUND = `${PRELUDE}
for s = slot, slot - slots + 1, -1 do
  if (tonumber(redis.call('HGET', KEYS[1], 'w' .. s)) or 0) > 0 then
    redis.call('HINCRBY', KEYS[1], 'w' .. s, -1)
    return 1
  end
end
return 0`;

export interface RedisBudgetStoreOptions {
  /**
   * Prefix of the Redis key; every process that should share a budget uses the same one.
   * @default 'axios-resilience:'
   */
  prefix?: string;
}

/**
 * A `BudgetStore` on Redis: `new RetryBudget({ ratio, minPerSecond, windowMs, store: redisBudgetStore(redis) })`.
 * Grants are atomic across processes (one Lua script per retry, run by `EVALSHA`); first attempts
 * arrive in batches. Every process sharing a prefix must use the same ratio, floor and window.
 */
export function redisBudgetStore(client: RedisClient, options: RedisBudgetStoreOptions = {}): BudgetStore {
  const key = `${options.prefix ?? 'axios-resilience:'}budget`;
  const deposit = new Script(client, DEPOSIT);
  const withdraw = new Script(client, WITHDRAW);
  const refund = new Script(client, REFUND);
  const common = (settings: BudgetSettings) => {
    const slotMs = Math.max(1, Math.floor(settings.windowMs / BUDGET_SLOTS));
    return [slotMs, BUDGET_SLOTS, slotMs * BUDGET_SLOTS * 2];
  };
  return {
    async deposit(count, settings) {
      await deposit.run([key], [...common(settings), count]);
    },
    async withdraw(settings) {
      const floor = (settings.minPerSecond * settings.windowMs) / 1000;
      return (await withdraw.run([key], [...common(settings), settings.ratio, floor])) === 1;
    },
    async refund(settings) {
      await refund.run([key], common(settings));
    },
    ready: () => isReady(client),
  };
}
