-- Shared by the scripts that reclaim (prepended to each). KEYS of every
-- point script: 1 meta, 2 queue, 3 info, 4 seen, 5 lease, 6 expiry,
-- 7 done, 8 slots (per origin, every point's).

-- The server's clock: one clock for every crawler, whatever its host.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function depth_of(url)
  return tonumber(string.match(redis.call('HGET', KEYS[3], url) or '0', '^%d+')) or 0
end

-- A URL put back goes first among its depth: it waited longest. Its
-- claim no longer counts against the run's page limit.
local function requeue(url)
  redis.call('ZADD', KEYS[2], depth_of(url) * 4294967296, url)
  redis.call('HINCRBY', KEYS[1], 'claimed', -1)
end

-- Leases past their expiry (a dead or stopped crawler's) go back to the
-- queue before anything is taken or judged.
local function reclaim(now)
  local expired = redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', now)
  for _, url in ipairs(expired) do
    redis.call('ZREM', KEYS[6], url)
    redis.call('HDEL', KEYS[5], url)
    requeue(url)
  end
end
