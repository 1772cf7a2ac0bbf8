-- KEYS[1]: the slots hash; ARGV: origin, gap ms. Takes the origin's next
-- request start when it is due (returns 0) or says how many ms are left.
-- A request starts only with its slot: the gap holds across crawlers.
local now = now_ms()
local due = tonumber(redis.call('HGET', KEYS[1], ARGV[1])) or 0
if due > now then return due - now end
redis.call('HSET', KEYS[1], ARGV[1], now + tonumber(ARGV[2]))
return 0
