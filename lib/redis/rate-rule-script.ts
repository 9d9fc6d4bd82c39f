import { FIRST_OWN_ARG, PRELUDE, ruleArgs } from './rate-rule-lua';
import type { ScriptReport } from './rate-rule-lua';
import type { RateLimitReport } from '../types';

/** The fleet's two scripts over the rate rule in Lua (`rate-rule-lua.ts`): a take of send times, and a throttle. */

/**
 * Own ARGV: how many send times are asked for, how far ahead they may be booked (ms), and how late
 * the asker hears the fleet (its round trip to the store, ms: a growth step is at least that). Counts the
 * successes reported, takes a policy's rate, grows the rate for the steps since the last when the
 * schedule is booked ahead (demand above the rate), then grants send times up to the horizon;
 * `retryAt` says when asking again can be granted a batch. Replies (numbers as text): now, state,
 * granted, first, interval, retryAt, rate, paused, relaxAt.
 */
export const TAKE_SCRIPT = `${PRELUDE}
local count, horizon = tonumber(ARGV[${FIRST_OWN_ARG}]), tonumber(ARGV[${FIRST_OWN_ARG + 1}])
local lag = tonumber(ARGV[${FIRST_OWN_ARG + 2}])
if not on then
  return {fmt(now), 'off', count, fmt(now), '0', fmt(now), '0', '0', '0'}
end
counted(successes, 0)
if policy > 0 then withPolicy(policy) end
local demand = s.nextAt > now
grown(demand, lag)
local granted, first, interval = booked(count, horizon)
save()
if demand then expire() end
local relaxAt = now + math.max(0, redis.call('PTTL', K))
-- Ask again once half the horizon has room: a batch, not one round trip per send time.
local retryAt = math.max(now + 1, first + granted * interval - horizon / 2)
return {fmt(now), 'on', granted, fmt(first), fmt(interval), fmt(retryAt), fmt(s.ratePerSecond), fmt(s.pausedUntil), fmt(relaxAt)}`;

/**
 * Own ARGV: how long ago the throttled attempt was sent (ms), the pause asked for (ms, 0: none), the
 * grace after a cut (ms: the send times booked before it reach that far, so their throttles were
 * caused by the old rate), 1 for a throttle with no hint (it may be noise), and the
 * rate the scope was served at before (per second; 0: not known), which an engaging fleet starts from.
 * Engages the fleet's state if absent, else cuts once per burst (unless it is noise) and pauses. Replies: now, rate, paused, and 1 when this throttle engaged the fleet.
 */
export const THROTTLE_SCRIPT = `${PRELUDE}
local sentAt = now - tonumber(ARGV[${FIRST_OWN_ARG}])
local pauseMs, grace = tonumber(ARGV[${FIRST_OWN_ARG + 1}]), tonumber(ARGV[${FIRST_OWN_ARG + 2}])
local hintless = tonumber(ARGV[${FIRST_OWN_ARG + 3}]) == 1
local startRate = tonumber(ARGV[${FIRST_OWN_ARG + 4}])
local engage = 0
if not on then
  engage = 1
  engaged(policy > 0 and policy * policyShare or math.huge, pauseMs, startRate)
else
  counted(successes, 0)
  if policy > 0 then withPolicy(policy) end
  if startRate > 0 then joined(startRate) end
  throttled(sentAt, pauseMs, grace, hintless)
end
save()
expire()
return {fmt(now), fmt(s.ratePerSecond), fmt(s.pausedUntil), engage}`;

export const takeArgs = (report: ScriptReport, count: number, horizonMs: number, lagMs = 0): number[] => [
  ...ruleArgs(report),
  count,
  horizonMs,
  lagMs,
];

/** `throttle`: the process's report, and the grace after a cut (ms) its store gives it. */
export const throttleArgs = (report: ScriptReport, throttle: RateLimitReport & { graceMs: number }): number[] => [
  ...ruleArgs(report),
  throttle.ageMs,
  throttle.pauseMs ?? 0,
  throttle.graceMs,
  throttle.hintless === true ? 1 : 0,
  throttle.startRate ?? 0,
];
