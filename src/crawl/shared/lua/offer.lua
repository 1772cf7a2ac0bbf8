-- ARGV: (url, depth, hops) triples. A URL the run never saw is queued,
-- breadth-first (depth, then arrival); one still queued at a greater
-- depth takes the shorter one. Returns how many were queued.
local queued = 0
for i = 1, #ARGV, 3 do
  local url, depth, hops = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
  local new = redis.call('SADD', KEYS[4], url) == 1
  if new or (redis.call('ZSCORE', KEYS[2], url) and depth < depth_of(url)) then
    local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
    redis.call('ZADD', KEYS[2], depth * 4294967296 + seq, url)
    redis.call('HSET', KEYS[3], url, depth .. ' ' .. hops)
    if new then queued = queued + 1 end
  end
end
return queued
