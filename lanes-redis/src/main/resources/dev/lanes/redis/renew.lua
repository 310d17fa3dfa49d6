-- Renews the leases of the permits this instance's running tasks hold, and counts the others.
-- A permit that is missing (its lease lapsed while its task ran, or Redis lost its data) is put
-- back: the task is running, so the count of holders stays the count of running tasks, and no new
-- grant is made until they are below the cap again. Then hands permits freed by lapsed leases to
-- the oldest waiters.
-- An instance that was cut off from Redis passes a settle time on its first renewal after: no
-- permit is handed out for that long, so that the other instances (which may still run tasks on
-- their local share, or whose permits were lost in a restart) put theirs back first.
-- KEYS[1] holders, KEYS[2] waiters, KEYS[3] waiter expiry, KEYS[4] ticket counter, KEYS[5] settings,
-- KEYS[6] settle (a key that exists while no permit may be handed out)
-- ARGV: lease ms, grant channel, settle ms (0: none), ids...
-- Returns {holders, waiters, {ids put back}}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
local channel = ARGV[2]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 500)
if #gone > 0 then
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('ZREM', KEYS[3], unpack(gone))
end
local settle = tonumber(ARGV[3])
if settle > 0 then
  redis.call('SET', KEYS[6], 1, 'PX', settle)
end
local reinstated = {}
for i = 4, #ARGV do
  if redis.call('ZADD', KEYS[1], now + lease, ARGV[i]) == 1 then
    reinstated[#reinstated + 1] = ARGV[i]
  end
end
local settings = redis.call('HMGET', KEYS[5], 'cap', 'lease')
if settings[1] and redis.call('EXISTS', KEYS[6]) == 0 then
  local storedLease = tonumber(settings[2])
  local free = tonumber(settings[1]) - redis.call('ZCARD', KEYS[1])
  while free > 0 do
    local head = redis.call('ZRANGE', KEYS[2], 0, 0)
    if #head == 0 then break end
    redis.call('ZREM', KEYS[2], head[1])
    redis.call('ZREM', KEYS[3], head[1])
    redis.call('ZADD', KEYS[1], now + storedLease, head[1])
    redis.call('PUBLISH', channel, head[1])
    free = free - 1
  end
end
return {redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]), reinstated}
