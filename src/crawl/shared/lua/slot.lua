-- KEYS[1]: the slots hash (each origin's next request start), KEYS[2]:
-- the origin's holds (a sorted set: hold name -> when it lapses). ARGV:
-- origin, gap ms, bound (`--per-host`), hold name, hold ms. Takes the
-- origin's next start and a hold when both are free (returns 0), or says
-- how many ms to wait before asking again. A request starts only with
-- both: the gap, a Retry-After pause and the bound hold across crawlers.
local now = now_ms()
local due = tonumber(redis.call('HGET', KEYS[1], ARGV[1])) or 0
if due > now then return due - now end
-- A dead crawler's holds lapse: it does not keep the origin forever.
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  -- A hold's end is not announced: ask again soon.
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return math.max(1, math.min(tonumber(first[2]) - now, 25))
end
local hold = tonumber(ARGV[5])
redis.call('ZADD', KEYS[2], now + hold, ARGV[4])
-- The set goes with its last hold.
redis.call('PEXPIRE', KEYS[2], hold)
local gap = tonumber(ARGV[2])
if gap > 0 then redis.call('HSET', KEYS[1], ARGV[1], now + gap) end
return 0
