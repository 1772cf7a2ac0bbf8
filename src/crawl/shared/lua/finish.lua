-- ARGV: owner, how many are pages, how many are done otherwise, the
-- pages' URLs, the other done URLs, then the URLs given back. Only the
-- owner's leases count: a URL another crawler took since is that
-- crawler's. Only pages (2xx) count against the run's page limit, as a
-- crawler alone counts them.
local owner, npages, nother = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
for i = 4, #ARGV do
  local url = ARGV[i]
  if redis.call('HGET', KEYS[5], url) == owner then
    redis.call('HDEL', KEYS[5], url)
    redis.call('ZREM', KEYS[6], url)
    if i < 4 + npages + nother then
      redis.call('SADD', KEYS[7], url)
      redis.call('HDEL', KEYS[3], url)
      if i >= 4 + npages then redis.call('HINCRBY', KEYS[1], 'claimed', -1) end
    else
      requeue(url)
    end
  end
end
return 0
