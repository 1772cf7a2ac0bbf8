-- Is the point's run over? 'more': URLs are queued (expired leases
-- among them); 'wait': live leases may still find links; 'done': neither,
-- and the run is marked finished (the next crawler to join begins anew).
reclaim(now_ms())
if redis.call('ZCARD', KEYS[2]) > 0 then return 'more' end
if redis.call('HLEN', KEYS[5]) > 0 then return 'wait' end
redis.call('HSET', KEYS[1], 'finished', 1)
return 'done'
