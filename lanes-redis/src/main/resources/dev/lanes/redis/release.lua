-- Gives back permits and withdraws waiters, then hands the freed permits to the oldest waiters.
-- KEYS[1] holders, KEYS[2] waiters, KEYS[3] waiter expiry, KEYS[4] ticket counter, KEYS[5] settings,
-- KEYS[6] settle (exists while no permit may be handed out: see renew.lua)
-- ARGV: grant channel, ids...
-- Returns how many permits were released (a waiter id or an unknown id counts 0).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local channel = ARGV[1]
local released = 0
for i = 2, #ARGV do
  released = released + redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('ZREM', KEYS[2], ARGV[i])
  redis.call('ZREM', KEYS[3], ARGV[i])
end

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 500)
if #gone > 0 then
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('ZREM', KEYS[3], unpack(gone))
end
local settings = redis.call('HMGET', KEYS[5], 'cap', 'lease')
if settings[1] and redis.call('EXISTS', KEYS[6]) == 0 then
  local lease = tonumber(settings[2])
  local free = tonumber(settings[1]) - redis.call('ZCARD', KEYS[1])
  while free > 0 do
    local head = redis.call('ZRANGE', KEYS[2], 0, 0)
    if #head == 0 then break end
    redis.call('ZREM', KEYS[2], head[1])
    redis.call('ZREM', KEYS[3], head[1])
    redis.call('ZADD', KEYS[1], now + lease, head[1])
    redis.call('PUBLISH', channel, head[1])
    free = free - 1
  end
end
return released
