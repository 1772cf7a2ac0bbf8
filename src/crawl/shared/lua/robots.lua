-- KEYS[1]: an origin's robots.txt answer as a crawler kept it, KEYS[2]:
-- the turn to fetch it (held while one crawler fetches, lapsing if it
-- dies). ARGV: the turn's ms. Returns the kept answer ('kept', status,
-- when fetched, body), or 'mine' (the caller fetches it now) or 'wait'
-- (another does), padded to four.
local kept = redis.call('HMGET', KEYS[1], 'status', 'fetched_at', 'body')
if kept[1] then return { 'kept', kept[1], kept[2], kept[3] or '' } end
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then return { 'mine', '', '', '' } end
return { 'wait', '', '', '' }
