/**
 * Part of the take script (`rate-rule-script.ts`), run in its scope (its `K`, `now`, `stepMs`,
 * `windowSteps`, `fmt`): a fixed window's quota counted for the whole fleet, where
 * `guards/window-quota.ts` counts one process's sends. The window is the newest word a process told
 * (`remaining` as of a request sent `asOfAge` ms ago, reset in `resetIn` ms), less the send times
 * granted since: those of the steps after the word's own and its share of that one, kept per step as `g<step>` for the window's steps, then each grant as it is made.
 * `fleetWindow` returns what is left and the reset, or nil when no window is known.
 */
export const FLEET_WINDOW = `
local function grantsSince(at)
  local sum, step, from = 0, math.floor(now / stepMs), math.floor(at / stepMs)
  for i = math.max(from, step - windowSteps + 1), step do
    local g = tonumber(redis.call('HGET', K, 'g' .. i)) or 0
    -- The word's own step: the share of it after the request was sent.
    if i == from then g = g * (1 - (at - from * stepMs) / stepMs) end
    sum = sum + g
  end
  return math.floor(sum + 0.5)
end

local function fleetWindow(remaining, resetIn, asOfAge)
  local w = redis.call('HMGET', K, 'wrem', 'wreset', 'wasof', 'wsent')
  local rem, reset, asOf, sent = tonumber(w[1]), tonumber(w[2]), tonumber(w[3]), tonumber(w[4])
  if rem ~= nil and now >= reset then
    rem = nil
    redis.call('HDEL', K, 'wrem', 'wreset', 'wasof', 'wsent')
  end
  if remaining >= 0 and resetIn > 0 and (rem == nil or now - asOfAge > asOf) then
    rem, reset, asOf = remaining, now + resetIn, now - asOfAge
    sent = grantsSince(asOf)
    redis.call('HSET', K, 'wrem', fmt(rem), 'wreset', fmt(reset), 'wasof', fmt(asOf), 'wsent', sent)
  end
  if rem == nil then return nil, 0 end
  return rem - sent, reset
end

local function grantsCounted(granted, inWindow)
  local step = math.floor(now / stepMs)
  local last = tonumber(redis.call('HGET', K, 'glast')) or step
  for i = last - windowSteps + 1, math.min(last, step - windowSteps) do redis.call('HDEL', K, 'g' .. i) end
  redis.call('HSET', K, 'glast', step)
  if granted > 0 then redis.call('HINCRBY', K, 'g' .. step, granted) end
  if inWindow and granted > 0 then redis.call('HINCRBY', K, 'wsent', granted) end
end
`;
