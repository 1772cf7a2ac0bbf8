-- ARGV: owner, lease ms, urls. Each URL still leased to the owner gets a
-- fresh lease; returns 1 for those, 0 for the ones another crawler took.
local now = now_ms()
local out = {}
for i = 3, #ARGV do
  if redis.call('HGET', KEYS[5], ARGV[i]) == ARGV[1] then
    redis.call('ZADD', KEYS[6], now + tonumber(ARGV[2]), ARGV[i])
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
