-- ARGV: owner, n, lease ms, delay ms, the run's page limit (0: none).
-- Takes up to n queued URLs in queue order and leases them to the owner;
-- with a delay, of each origin only what its politeness slot lets start
-- within the next second (at least one), and none of an origin whose
-- slot is taken for longer: the slot itself is taken when each request
-- starts (lua/slot.lua), so claiming a second's worth keeps the origin
-- busy between two claims without holding URLs another crawler could
-- start sooner; with a limit, no more than the run has left (the meta's
-- `claimed` counts the run's claims across the cluster). Returns the
-- queue's length left, then (url, "depth hops") pairs.
local now = now_ms()
reclaim(now)
local owner, n, lease, delay = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local limit = tonumber(ARGV[5])
if limit > 0 then
  n = math.max(0, math.min(n, limit - (tonumber(redis.call('HGET', KEYS[1], 'claimed')) or 0)))
end
local out = { 0 }
local per_origin = delay > 0 and math.max(1, math.floor(1000 / delay)) or n
local of_origin = {}
local taken = 0
-- ZRANGE 0 -1 would be the whole queue.
local ahead = n > 0 and redis.call('ZRANGE', KEYS[2], 0, math.min(n * 4, 4096) - 1) or {}
for _, url in ipairs(ahead) do
  if taken >= n then break end
  local origin = string.match(url, '^[%w+.-]+://[^/?#]*') or url
  local free = true
  if delay > 0 then
    free = (of_origin[origin] or 0) < per_origin
      and (tonumber(redis.call('HGET', KEYS[8], origin)) or 0) <= now + 1000
  end
  if free then
    of_origin[origin] = (of_origin[origin] or 0) + 1
    redis.call('ZREM', KEYS[2], url)
    redis.call('HSET', KEYS[5], url, owner)
    redis.call('ZADD', KEYS[6], now + lease, url)
    out[#out + 1] = url
    out[#out + 1] = redis.call('HGET', KEYS[3], url) or '0 0'
    taken = taken + 1
  end
end
redis.call('HINCRBY', KEYS[1], 'claimed', taken)
out[1] = redis.call('ZCARD', KEYS[2])
return out
