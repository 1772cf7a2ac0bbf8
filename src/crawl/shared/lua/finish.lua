-- ARGV: owner, how many are done, the done URLs, then the URLs given
-- back. Only the owner's leases count: a URL another crawler took since
-- is that crawler's.
local owner, ndone = ARGV[1], tonumber(ARGV[2])
for i = 3, #ARGV do
  local url = ARGV[i]
  if redis.call('HGET', KEYS[5], url) == owner then
    redis.call('HDEL', KEYS[5], url)
    redis.call('ZREM', KEYS[6], url)
    if i < 3 + ndone then
      redis.call('SADD', KEYS[7], url)
      redis.call('HDEL', KEYS[3], url)
    else
      requeue(url)
    end
  end
end
return 0
