import { RATE_RULE } from '../guards/rate-state';

/**
 * The rate rule (`guards/rate-rule.ts`) in Lua, for the fleet's schedule on Redis. Each function
 * below is the TypeScript function of the same name, line for line; every number is an argument
 * taken from `RATE_RULE` (a Lua local of the same name), so the two cannot hold different numbers,
 * and `__tests__/fleet/rate-rule-parity.test.ts` feeds both the same events on a real Redis.
 *
 * The state is one hash, `<prefix>rate:<key>` (one key: one slot on a Redis Cluster), with the
 * fields of `RateState` (`capacity` -1 and `ceiling` 0 for none, `gentle` 0 or 1), and the counted
 * successes and throttles of each step of the window as `b<step>` and `z<step>`. Numbers are kept
 * as `%.17g` text, so they read back exactly. Times are Redis's own clock (`TIME`), so processes
 * with skewed clocks agree; a `clock` argument above 0 replaces it (the parity test's).
 */

const RULE_NAMES = Object.keys(RATE_RULE) as (keyof typeof RATE_RULE)[];

/** The fields of `RateState` in the hash, in this order. */
const STATE_FIELDS = [
  'ratePerSecond',
  'nextAt',
  'pausedUntil',
  'pauseEndsAt',
  'lastCutAt',
  'capacity',
  'ceiling',
  'stepAt',
  'probeSteps',
  'gentle',
  'engagedAt',
  'lastStep',
] as const;

/** ARGV: the rule's numbers, then `clock`, successes since the last report, a policy's rate (0: none), then the script's own. */
export const FIRST_OWN_ARG = RULE_NAMES.length + 4;

export const PRELUDE = `
${RULE_NAMES.map((name, i) => `local ${name} = tonumber(ARGV[${i + 1}])`).join('\n')}
local clock = tonumber(ARGV[${RULE_NAMES.length + 1}])
local successes, policy = tonumber(ARGV[${RULE_NAMES.length + 2}]), tonumber(ARGV[${RULE_NAMES.length + 3}])
local now = clock
if clock <= 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
local K = KEYS[1]
local NAMES = {${STATE_FIELDS.map((name) => `'${name}'`).join(', ')}}
local f = redis.call('HMGET', K, unpack(NAMES))
local on = f[1] ~= false
local s = {}
for i, name in ipairs(NAMES) do s[name] = tonumber(f[i]) or 0 end

local function fmt(x) return string.format('%.17g', x) end
local function ceiling() return s.ceiling > 0 and s.ceiling or math.huge end

local function save()
  local args = {}
  for _, name in ipairs(NAMES) do
    args[#args + 1] = name
    args[#args + 1] = fmt(s[name])
  end
  redis.call('HSET', K, unpack(args))
end

local function expire()
  redis.call('PEXPIRE', K, math.ceil(math.max(relaxMs, s.pausedUntil - now)))
end

local function paused(ms)
  if ms <= 0 then return end
  s.pausedUntil = math.max(s.pausedUntil, now + ms)
  if ms >= longPauseMs then s.pauseEndsAt = s.pausedUntil end
end

local function engaged(ceil, pauseMs, startRate)
  local start = startRate > seedRate and startRate or nil
  s.ratePerSecond = math.min(start or seedRate, ceil)
  s.nextAt, s.pausedUntil, s.pauseEndsAt, s.lastCutAt = now, 0, 0, now
  if ceil < math.huge then s.capacity = math.min(ceil, start or ceil) else s.capacity = start or -1 end
  s.ceiling = ceil < math.huge and ceil or 0
  s.stepAt, s.probeSteps, s.gentle, s.engagedAt = now, 0, 0, now
  s.lastStep = math.floor(now / stepMs)
  paused(pauseMs)
end

local function joined(share)
  if s.lastCutAt ~= s.engagedAt or now - s.engagedAt > joinMs then return end
  s.ratePerSecond = math.min(s.ratePerSecond + share, ceiling())
  if s.capacity >= 0 then s.capacity = math.min(s.capacity + share, ceiling()) end
end

local function withPolicy(rate)
  s.ceiling = rate * policyShare
  if s.capacity < 0 then s.capacity = s.ceiling end
  s.ratePerSecond = math.min(s.ratePerSecond, s.ceiling)
end

-- Only the window's buckets are kept: moving on drops those that left it.
local function counted(count, refused)
  local step = math.floor(now / stepMs)
  if step > s.lastStep then
    for i = s.lastStep - windowSteps + 1, math.min(s.lastStep, step - windowSteps) do
      redis.call('HDEL', K, 'b' .. i, 'z' .. i)
    end
    s.lastStep = step
  end
  if count > 0 then redis.call('HINCRBY', K, 'b' .. s.lastStep, count) end
  if refused > 0 then redis.call('HINCRBY', K, 'z' .. s.lastStep, refused) end
end

local function measured()
  local since = now - math.max(s.engagedAt, s.pauseEndsAt)
  if since < 2 * stepMs then return nil end
  local into = now - s.lastStep * stepMs
  local function rateOver(steps)
    local span = math.min(steps * stepMs, since)
    local n = math.min(windowSteps, math.ceil(span / stepMs) + 1)
    local sum = 0
    for i = s.lastStep - n + 1, s.lastStep do sum = sum + (tonumber(redis.call('HGET', K, 'b' .. i)) or 0) end
    return sum * 1000 / math.max(stepMs, math.min(since, (n - 1) * stepMs + into))
  end
  if s.capacity >= 0 and since < windowSteps * stepMs / 2 then return nil end
  local rate
  if s.capacity >= 0 then rate = rateOver(windowSteps) else rate = math.max(rateOver(windowSteps), rateOver(recentSteps)) end
  if rate < s.ratePerSecond * leastBelieved then return nil end
  return rate
end

local function withinNoise()
  if s.capacity < 0 then return false end
  local refused, answers = 0, 0
  for i = s.lastStep - windowSteps + 1, s.lastStep do
    local z = tonumber(redis.call('HGET', K, 'z' .. i)) or 0
    refused = refused + z
    answers = answers + z + (tonumber(redis.call('HGET', K, 'b' .. i)) or 0)
  end
  return refused <= answers * noise
end

local function throttled(sentAt, pauseMs, graceMs, hintless)
  if sentAt < s.lastCutAt + graceMs then return end
  counted(0, 1)
  if hintless and withinNoise() then return end
  for i = s.lastStep - windowSteps + 1, s.lastStep do redis.call('HDEL', K, 'z' .. i) end
  local m = measured()
  if m ~= nil then s.capacity = m end
  local cut = s.capacity >= 0 and s.capacity * beta or s.ratePerSecond / 2
  s.ratePerSecond = math.max(minRate, math.min(s.ratePerSecond * beta, cut, ceiling()))
  s.lastCutAt, s.probeSteps = now, 0
  s.gentle = pauseMs >= longPauseMs and 1 or 0
  paused(pauseMs)
end

local function grown(demand, lag)
  if now < s.pausedUntil then
    s.stepAt = now
    return
  end
  s.stepAt = math.max(s.stepAt, s.pauseEndsAt)
  local span = math.max(stepMs, lag)
  local steps = math.floor((now - s.stepAt) / span)
  if steps <= 0 then return end
  s.stepAt = s.stepAt + steps * span
  if not demand then return end
  local rate = s.ratePerSecond
  for _ = 1, math.min(steps, maxCatchUpSteps) do
    local target = s.capacity * (s.gentle == 1 and beta or targetShare)
    if s.capacity < 0 then
      rate = rate * 2
    elseif rate < target - epsilon then
      rate = math.min(target, rate + (target - rate) * closeShare + closeFloor)
    elseif s.gentle == 1 then
      rate = rate * (1 + gentleProbe)
    else
      s.probeSteps = s.probeSteps + 1
      rate = rate * (1 + probe * s.probeSteps)
    end
  end
  s.ratePerSecond = math.min(rate, ceiling())
end

local function booked(count, aheadMs)
  local interval = 1000 / s.ratePerSecond
  local first = math.max(s.nextAt, now - interval, s.pausedUntil)
  if first > now + aheadMs then return 0, first, interval end
  local granted = math.min(count, math.max(1, math.ceil((now + aheadMs - first) / interval)))
  s.nextAt = first + granted * interval
  return granted, first, interval
end
`;

/** What every call of the scripts reports: the clock (0: Redis's), successes, a policy's rate. */
export interface ScriptReport {
  clock?: number;
  successes: number;
  policyRate: number | undefined;
}

export const ruleArgs = (report: ScriptReport): number[] => [
  ...RULE_NAMES.map((name) => RATE_RULE[name]),
  report.clock ?? 0,
  report.successes,
  report.policyRate ?? 0,
];
