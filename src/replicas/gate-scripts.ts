/**
 * The rate gate's rules (rate-gate.ts, whose header explains them) as Lua scripts, so that every
 * replica's reserve, release and forget is one atomic step on the shared state of a key:
 *
 *  - KEYS[1], a hash: `rem` and `reset` (the budget learnt and its window's end; absent when
 *    unknown), `blind`, `seen` (the largest budget seen), `refused` (a 429's end), `refusals`
 *    (429s received), `probe` (probe with one request after a 429).
 *  - KEYS[2], a sorted set of the reservations in flight, each scored by the moment it expires:
 *    now + one attempt's time-out. Pruned first by every script, so the unit of a replica killed
 *    mid-request frees itself; an answer that arrives later is still learnt.
 *
 * "Now" is passed in (ARGV[1]), not read from TIME: resets are times on the API's clock read on
 * ours (the header parser's `now`), so the state must be compared with the same clock; replicas
 * are assumed in step (NTP), as the API and the bot already are. Both keys expire on their own
 * (PEXPIRE, relative, so Redis's own clock does not matter): at the latest of the window's end,
 * the refusal's end and the last reservation's expiry, plus ARGV[2] (an idle margin).
 */
import { FIRST_USE_BURST, MAX_NEW_WINDOW_BURST, SAME_WINDOW_MS } from '../api/gate.js';
import { lua } from './redis-link.js';

const PRELUDE = `
local K, F = KEYS[1], KEYS[2]
local now, margin = tonumber(ARGV[1]), tonumber(ARGV[2])
local function num(v) if v then return tonumber(v) end return nil end
local r = redis.call('HMGET', K, 'rem', 'reset', 'blind', 'seen', 'refused', 'refusals', 'probe')
local s = { rem = num(r[1]), reset = num(r[2]), blind = r[3] == '1', seen = num(r[4]) or 0,
  refused = num(r[5]), refusals = num(r[6]) or 0, probe = r[7] == '1' }
redis.call('ZREMRANGEBYSCORE', F, '-inf', now)
local function int(n) return string.format('%d', n) end
local function inFlight() return redis.call('ZCARD', F) end
local function expire()
  if s.refused and now >= s.refused then s.refused = nil end
  if s.reset and now >= s.reset then s.rem = nil; s.reset = nil; s.blind = false end
end
local function view()
  expire()
  if not s.rem or not s.reset then return {-1, -1} end
  return {math.max(0, s.rem - inFlight()), s.reset}
end
local function save()
  local set, del = {'seen', int(s.seen), 'refusals', int(s.refusals), 'blind', s.blind and '1' or '0', 'probe', s.probe and '1' or '0'}, {}
  for _, f in ipairs({'rem', 'reset', 'refused'}) do
    if s[f] then table.insert(set, f); table.insert(set, int(s[f])) else table.insert(del, f) end
  end
  redis.call('HSET', K, unpack(set))
  if #del > 0 then redis.call('HDEL', K, unpack(del)) end
  local horizon = math.max(s.reset or 0, s.refused or 0, now)
  local last = redis.call('ZRANGE', F, -1, -1, 'WITHSCORES')
  if last[2] then horizon = math.max(horizon, tonumber(last[2])) end
  local ttl = int(horizon - now + margin)
  redis.call('PEXPIRE', K, ttl)
  redis.call('PEXPIRE', F, ttl)
end
`;

/** ARGV[3] reservation id, ARGV[4] its expiry. Returns {1, refusals} admitted, {0, resetAt} refused, {2} wait. */
export const RESERVE = lua(`${PRELUDE}
local function burst()
  if s.probe then return 1 end
  if s.seen > 0 then return math.max(1, math.min(${MAX_NEW_WINDOW_BURST}, math.floor(s.seen / 4))) end
  return ${FIRST_USE_BURST}
end
expire()
local out
if s.refused then
  out = {0, s.refused}
else
  local n = inFlight()
  local admit = false
  if not s.rem or not s.reset then
    if s.blind or n < burst() then admit = true else out = {2} end
  elseif s.rem - n > 0 then
    admit = true
  else
    out = {0, s.reset}
  end
  if admit then
    redis.call('ZADD', F, ARGV[4], ARGV[3])
    out = {1, s.refusals}
  end
end
save()
return out
`);

/**
 * ARGV[3] reservation id, ARGV[4] the refusals count when it was admitted, ARGV[5] what the answer
 * said: '429' (ARGV[6] the refusal's end), 'learn' (ARGV[6] Remaining, ARGV[7] Reset, either ''
 * when absent) or 'none' (no answer). Returns the key's {remaining, resetAt} after it, -1 unknown.
 */
export const RELEASE = lua(`${PRELUDE}
redis.call('ZREM', F, ARGV[3])
local kind = ARGV[5]
if kind == '429' then
  local untilMs = tonumber(ARGV[6])
  if s.refused and s.refused > untilMs then untilMs = s.refused end
  s.refused = untilMs; s.rem = 0; s.reset = untilMs
  s.refusals = s.refusals + 1; s.probe = true; s.blind = false
elseif s.refusals == tonumber(ARGV[4]) then
  local rem, reset = tonumber(ARGV[6]), tonumber(ARGV[7])
  local learnt = false
  if kind == 'learn' and rem and reset and reset > now then
    learnt = true
    if not s.rem or not s.reset or reset >= s.reset + ${SAME_WINDOW_MS} then
      s.rem = rem; s.reset = reset
    elseif reset > s.reset - ${SAME_WINDOW_MS} then
      s.rem = math.min(s.rem, rem); s.reset = math.max(s.reset, reset)
    end
    s.seen = math.max(s.seen, rem + 1); s.blind = false; s.probe = false
  end
  if not learnt and (not s.rem or not s.reset) then s.blind = true end
end
local out = view()
save()
return out
`);

/** Returns {remaining, resetAt}, -1 unknown. */
export const SNAPSHOT = lua(`${PRELUDE}
return view()
`);

export const FORGET = lua(`${PRELUDE}
expire()
if s.refused then s.rem = 0 else s.rem = nil end
s.reset = s.refused; s.blind = false; s.seen = 0
if inFlight() == 0 and not s.refused then redis.call('DEL', K, F) else save() end
return 1
`);
