-- Asks for one global permit, oldest waiter first. Atomic: Redis runs the whole script alone.
-- KEYS[1] holders  (sorted set: permit id -> lease expiry, ms on Redis's clock)
-- KEYS[2] waiters  (sorted set: waiter id -> ticket; the lowest ticket waited longest)
-- KEYS[3] waiter expiry (sorted set: waiter id -> expiry, ms; a waiter that stops asking lapses)
-- KEYS[4] ticket counter
-- ARGV: cap, lease ms, waiter id, waiter lease ms, release channel
-- Returns {1, holders, lease expiry, waiters} when granted (the waiter id becomes the permit id),
--         {0, holders, rank, waiters} when not.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cap = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])
local id = ARGV[3]
local lapsed = redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 500)
if #gone > 0 then
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('ZREM', KEYS[3], unpack(gone))
end
if lapsed > 0 then
  redis.call('PUBLISH', ARGV[5], lapsed)
end
if redis.call('ZSCORE', KEYS[1], id) then
  -- Granted by an earlier call whose reply was lost: the same grant, its lease extended.
  redis.call('ZADD', KEYS[1], now + lease, id)
  return {1, redis.call('ZCARD', KEYS[1]), now + lease, redis.call('ZCARD', KEYS[2])}
end
if not redis.call('ZSCORE', KEYS[2], id) then
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), id)
end
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[4]), id)
local held = redis.call('ZCARD', KEYS[1])
local rank = redis.call('ZRANK', KEYS[2], id)
if rank < cap - held then
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZADD', KEYS[1], now + lease, id)
  return {1, held + 1, now + lease, redis.call('ZCARD', KEYS[2])}
end
return {0, held, rank, redis.call('ZCARD', KEYS[2])}
