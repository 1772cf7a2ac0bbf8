-- A crawler joins the point's current run, or begins a new one when the
-- last ended (or none was): the run's queue, seen and done sets start empty.
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HGET', KEYS[1], 'finished') == '1' then
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
  redis.call('HDEL', KEYS[1], 'finished')
  redis.call('HSET', KEYS[1], 'seq', 0, 'claimed', 0)
  return redis.call('HINCRBY', KEYS[1], 'run', 1)
end
return tonumber(redis.call('HGET', KEYS[1], 'run'))
