import {
  BETA,
  CLOSE,
  GENTLE_PROBE,
  LONG_PAUSE_MS,
  MIN_RATE,
  POLICY_SHARE,
  PROBE,
  RECENT_STEPS,
  RELAX_MS,
  SEED_RATE,
  STEP_MS,
  WINDOW_MS,
} from '../guards/rate-limiter';
import { StoreHealth, warnOnce } from '../guards/store-health';
import type { RateLimitGrant, RateLimitSchedule, RateLimitStore, StoreEvent } from '../types';
import { isReady, listen, Script, selfId } from './client';
import { SharedPacing } from './shared-pacing';
import type { RedisClient } from './client';

/**
 * How far ahead one request may book the fleet's schedule (ms). Send times booked before a cut go
 * out at the old rate, and a raise reaches the server only when the times booked at it come up: the
 * fleet's reaction lags the local limiter's by up to this much. On the bench (4 processes, 100/s,
 * 200 callers), 200 ms gave 3.4–9.6 % 429s in steady state, 100 ms 0.9–4.8 %, 50 ms 0.9–2.0 %
 * (docs/fleet.md). A process whose waiting calls need more asks again when half of it has room
 * (`retryAt`): about 50 script calls a second per busy process.
 */
export const HORIZON_MS = STEP_MS / 2;

/**
 * The fleet's limiter of one origin is one Redis hash, `<prefix>rate:<key>` (one key: one slot on a
 * Redis Cluster), holding what `RateLimiter` holds per process: `rate`, the next free send time
 * `tat` (a GCRA's theoretical arrival time), `paused` and `pauseEnd`, `lastCut`, the capacity `cap`
 * and a policy's `ceil`, the growth step `stepAt`, `probe`, `gentle`, `engagedAt`, and successes per
 * `STEP_MS` bucket (`b<step>`). Times are Redis's own clock (`TIME`), so processes with skewed
 * clocks agree. The hash expires `RELAX_MS` after the last throttle (or the last request that found
 * the schedule booked ahead, i.e. demand above the rate): an absent hash is a relaxed fleet.
 *
 * The numbers come from `lib/guards/rate-limiter.ts` as ARGV, so they have one source:
 * 1 STEP_MS, 2 steps per window, 3 BETA, 4 CLOSE, 5 PROBE, 6 GENTLE_PROBE, 7 RELAX_MS, 8 MIN_RATE,
 * 9 SEED_RATE, 10 POLICY_SHARE, 11 LONG_PAUSE_MS, 12 RECENT_STEPS, 13 HORIZON_MS; then 14 successes
 * since the process last reported, 15 a policy's rate (0: none), and per script below.
 */
const PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local K = KEYS[1]
local STEP, STEPS = tonumber(ARGV[1]), tonumber(ARGV[2])
local BETA, CLOSE, PROBE, GENTLE = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local RELAX, MIN_RATE, SEED, SHARE = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local LONG_PAUSE, RECENT, HORIZON = tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13])
local successes, policy = tonumber(ARGV[14]), tonumber(ARGV[15])
local cur = math.floor(now / STEP)
local NAMES = {'rate', 'tat', 'paused', 'pauseEnd', 'lastCut', 'cap', 'ceil', 'stepAt', 'probe', 'gentle', 'engagedAt'}
local f = redis.call('HMGET', K, unpack(NAMES))
local on = f[1] ~= false
local s = {}
for i, name in ipairs(NAMES) do s[name] = tonumber(f[i]) or 0 end
-- No capacity measured yet (slow start) is -1: a measured 0 is a capacity, as in RateLimiter.
if f[6] == false then s.cap = -1 end
local ceil = s.ceil > 0 and s.ceil or math.huge
if policy > 0 then ceil = policy * SHARE end

local function save()
  s.ceil = ceil < math.huge and ceil or 0
  local args = {}
  for _, name in ipairs(NAMES) do
    args[#args + 1] = name
    args[#args + 1] = tostring(s[name])
  end
  redis.call('HSET', K, unpack(args))
end

local function expire()
  redis.call('PEXPIRE', K, math.ceil(math.max(RELAX, s.paused - now)))
end

-- Successes counted by the fleet since it engaged (or since a long pause ended), per second.
local function measured()
  local since = now - math.max(s.engagedAt, s.pauseEnd)
  if since < 2 * STEP then return nil end
  local function over(steps)
    local span = math.min(steps * STEP, since)
    local counted = math.min(STEPS, math.ceil(span / STEP) + 1)
    local sum = 0
    for i = cur - counted + 1, cur do sum = sum + (tonumber(redis.call('HGET', K, 'b' .. i)) or 0) end
    local into = now - cur * STEP
    return sum * 1000 / math.max(STEP, math.min(since, (counted - 1) * STEP + into))
  end
  if s.cap >= 0 then
    if since < STEPS * STEP / 2 then return nil end
    return over(STEPS)
  end
  return math.max(over(STEPS), over(RECENT))
end

local function pause(ms)
  if ms <= 0 then return end
  s.paused = math.max(s.paused, now + ms)
  if ms >= LONG_PAUSE then s.pauseEnd = s.paused end
end

if on then
  if successes > 0 then redis.call('HINCRBY', K, 'b' .. cur, successes) end
  local old = {}
  for i = cur - 2 * STEPS, cur - STEPS do old[#old + 1] = 'b' .. i end
  redis.call('HDEL', K, unpack(old))
  if policy > 0 then
    if s.cap < 0 then s.cap = ceil end
    s.rate = math.min(s.rate, ceil)
  end
end
`;

/**
 * ARGV[16]: how many send times are asked for. Grows the rate for the steps since the last (as
 * `RateLimiter.grow`) when the schedule is booked ahead, then grants send times up to `HORIZON_MS`
 * ahead; `retryAt` says when asking again can be granted a batch. Replies: now, state, granted, first, interval, retryAt, rate, paused, relaxAt (as text:
 * Redis would cut numbers to integers).
 */
const TAKE = `${PRELUDE}
local count = tonumber(ARGV[16])
if not on then
  return {tostring(now), 'off', count, tostring(now), '0', tostring(now), '0', '0', '0'}
end
local demand = s.tat > now
if now < s.paused then
  s.stepAt = now
else
  s.stepAt = math.max(s.stepAt, s.pauseEnd)
  local steps = math.floor((now - s.stepAt) / STEP)
  if steps > 0 then
    s.stepAt = s.stepAt + steps * STEP
    if demand then
      local rate = s.rate
      for _ = 1, math.min(steps, 50) do
        -- The hash keeps numbers as text: a rate read back may sit a hair under the target it was set to.
        local target = s.cap * (s.gentle == 1 and BETA or 0.98)
        if s.cap < 0 then
          rate = rate * 2
        elseif rate < target - 1e-6 then
          rate = math.min(target, rate + (target - rate) * CLOSE + 0.5)
        elseif s.gentle == 1 then
          rate = rate * (1 + GENTLE)
        else
          s.probe = s.probe + 1
          rate = rate * (1 + PROBE * s.probe)
        end
      end
      s.rate = math.min(rate, ceil)
    end
  end
end
local interval = 1000 / s.rate
local first = math.max(s.tat, now, s.paused)
local granted = 0
if first < now + HORIZON then granted = math.min(count, math.ceil((now + HORIZON - first) / interval)) end
s.tat = first + granted * interval
save()
if demand then expire() end
local relaxAt = now + math.max(0, redis.call('PTTL', K))
-- Ask again once half the horizon has room: a batch, not one round trip per send time.
local retryAt = math.max(now + 1, s.tat - HORIZON / 2)
return {tostring(now), 'on', granted, tostring(first), tostring(interval), tostring(retryAt),
  tostring(s.rate), tostring(s.paused), tostring(relaxAt)}`;

/**
 * ARGV[16]: how long ago the throttled attempt was sent (ms); ARGV[17]: the pause asked for (ms, 0:
 * none). Engages the fleet's state if absent, else cuts once per burst (as `RateLimiter.throttled`):
 * a throttle of an attempt sent before the last cut was caused by the old rate, and so was one sent
 * up to `HORIZON_MS` after it (send times booked before the cut reach that far), so it cuts nothing
 * and pauses nothing. Replies: now, rate, paused, and 1 when this throttle engaged the fleet.
 */
const THROTTLE = `${PRELUDE}
local sentAt = now - tonumber(ARGV[16])
local pauseMs = tonumber(ARGV[17])
local engaged = 0
if not on then
  engaged = 1
  s.rate = math.min(SEED, ceil)
  s.tat, s.lastCut, s.stepAt, s.engagedAt = now, now, now, now
  s.cap = ceil < math.huge and ceil or -1
  pause(pauseMs)
elseif sentAt >= s.lastCut + HORIZON then
  local m = measured()
  if m ~= nil then s.cap = m end
  local cut = s.cap >= 0 and s.cap * BETA or s.rate / 2
  s.rate = math.max(MIN_RATE, math.min(s.rate * BETA, cut, ceil))
  s.lastCut = now
  s.probe = 0
  s.gentle = pauseMs >= LONG_PAUSE and 1 or 0
  pause(pauseMs)
end
save()
expire()
return {tostring(now), tostring(s.rate), tostring(s.paused), engaged}`;

const CONSTANTS = [
  STEP_MS,
  WINDOW_MS / STEP_MS,
  BETA,
  CLOSE,
  PROBE,
  GENTLE_PROBE,
  RELAX_MS,
  MIN_RATE,
  SEED_RATE,
  POLICY_SHARE,
  LONG_PAUSE_MS,
  RECENT_STEPS,
  HORIZON_MS,
];

export interface RedisRateLimitStoreOptions {
  /**
   * Prefix of the Redis keys; processes that should share their rate limiters use the same one.
   * @default 'axios-resilience:'
   */
  prefix?: string;
  /**
   * How long a Redis command may take before the process paces alone, in ms.
   * @default 100
   */
  timeoutMs?: number;
  /**
   * Told once when Redis fails, and once when it answers again.
   * @default a console.warn line
   */
  onStoreEvent?: (event: StoreEvent) => void;
}

/** The script's replies: numbers as text (Lua's `tostring`, as Redis would cut them to integers) and whole numbers. */
const num = (value: unknown): number => Number(value);

/**
 * A `RateLimitStore` on Redis: `retryPlugin({ rateLimit: { shared: redisRateLimitStore(redis) } })`.
 * It is also the `RateLimitSchedule` its pacing asks (`take`, `throttle`).
 * Each origin's limiter keeps one schedule for the whole fleet: processes take send times from it
 * in batches (one script call per batch, by `EVALSHA`), report their successes with them, and a
 * throttle any process sees engages, cuts and pauses it for all. While Redis does not answer within
 * `timeoutMs`, each process paces by its own limiter.
 */
export function redisRateLimitStore(
  client: RedisClient,
  options: RedisRateLimitStoreOptions = {},
): RateLimitStore & RateLimitSchedule {
  const prefix = `${options.prefix ?? 'axios-resilience:'}rate:`;
  const health = new StoreHealth(
    options.timeoutMs ?? 100,
    options.onStoreEvent ?? warnOnce('rate limit store', 'rate limiters pace per process'),
  );
  const take = new Script(client, TAKE);
  const throttle = new Script(client, THROTTLE);
  // Announces a fleet's engagement to the processes whose limiter is still off (as the breaker sync does).
  const channel = `${options.prefix ?? 'axios-resilience:'}rate`;
  const self = selfId();
  let stopListening: (() => Promise<void>) | undefined;
  const store: RateLimitStore & RateLimitSchedule = {
    pacing: (key, now) => new SharedPacing(key, store, now),
    usable: () => health.usable(isReady(client)),
    async take(key, count, successes, policyRate) {
      let reply: unknown[];
      try {
        const args = [...CONSTANTS, successes, policyRate ?? 0, count];
        reply = (await health.ask(take.run([prefix + key], args))) as unknown[];
      } catch {
        return undefined;
      }
      const [now, , granted, first, interval, retryAt, rate, paused, relaxAt] = reply.map(num);
      const on = reply[1] === 'on';
      const grant: RateLimitGrant = {
        now: now!,
        state: on ? 'on' : 'off',
        granted: granted!,
        first: first!,
        intervalMs: interval!,
        retryAt: retryAt!,
        ratePerSecond: on ? rate! : Infinity,
        pausedUntil: paused!,
        relaxAt: relaxAt!,
      };
      return grant;
    },
    async throttle(key, report, successes) {
      // An attempt that was not paced has no send time the fleet could compare: "long ago".
      const ageMs = Math.min(report.ageMs, 1e9);
      const args = [...CONSTANTS, successes, report.policyRate ?? 0, ageMs, report.pauseMs ?? 0];
      let reply: unknown[];
      try {
        reply = (await health.ask(throttle.run([prefix + key], args))) as unknown[];
      } catch {
        return undefined;
      }
      const [now, rate, paused, engaged] = reply.map(num);
      if (engaged === 1) void client.publish(channel, JSON.stringify({ key, from: self })).catch(() => undefined);
      return { now: now!, ratePerSecond: rate!, pausedUntil: paused! };
    },
    start(engage) {
      stopListening = listen(client, channel, self, (note) => {
        if (typeof note.key === 'string') engage(note.key);
      });
    },
    async close() {
      const stop = stopListening;
      stopListening = undefined;
      await stop?.();
    },
  };
  return store;
}
