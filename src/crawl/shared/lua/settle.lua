-- ARGV: the run's page limit (0: none). Is the point's run over? 'more':
-- URLs are queued (expired leases among them) and the limit is not
-- reached; 'wait': live leases may still find links (or give URLs back);
-- 'done': neither, and the run is marked finished (the next crawler to
-- join begins anew).
reclaim(now_ms())
local limit = tonumber(ARGV[1])
local room = limit == 0 or (tonumber(redis.call('HGET', KEYS[1], 'claimed')) or 0) < limit
if room and redis.call('ZCARD', KEYS[2]) > 0 then return 'more' end
if redis.call('HLEN', KEYS[5]) > 0 then return 'wait' end
redis.call('HSET', KEYS[1], 'finished', 1)
return 'done'
