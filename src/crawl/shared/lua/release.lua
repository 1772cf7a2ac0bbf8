-- KEYS as slot.lua's; ARGV: origin, hold name, pause ms. Ends a hold; a
-- pause the origin asked for (Retry-After) moves its next start for every
-- crawler, never earlier than it was.
redis.call('ZREM', KEYS[2], ARGV[2])
local pause = tonumber(ARGV[3])
if pause > 0 then
  local resume = now_ms() + pause
  if resume > (tonumber(redis.call('HGET', KEYS[1], ARGV[1])) or 0) then
    redis.call('HSET', KEYS[1], ARGV[1], resume)
  end
end
return 0
