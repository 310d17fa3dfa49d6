-- Asks for global permits for a batch of waiters of one instance. Atomic: Redis runs the whole
-- script alone. Older waiters (of any instance) are served first; see handoff below.
-- KEYS[1] holders  (sorted set: permit id -> lease expiry, ms on Redis's clock)
-- KEYS[2] waiters  (sorted set: waiter id -> ticket; the lowest ticket has waited longest)
-- KEYS[3] waiter expiry (sorted set: waiter id -> expiry, ms; a waiter that stops asking lapses)
-- KEYS[4] ticket counter
-- KEYS[5] settings (hash: cap, lease ms), written by every acquire, read by release and renew
-- KEYS[6] settle (exists while no permit may be handed out: see renew.lua)
-- ARGV: cap, lease ms, waiter lease ms, grant channel, waiter ids...
-- Returns {holders, waiters, granted flag (1/0) per waiter id, in order}.
-- A waiter granted here or later gets the permit under its own id, and its id is published on the
-- grant channel; asking again with an id already granted answers granted (a lost reply is
-- harmless).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cap = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])
local waiterLease = tonumber(ARGV[3])
local channel = ARGV[4]

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 500)
if #gone > 0 then
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('ZREM', KEYS[3], unpack(gone))
end
redis.call('HSET', KEYS[5], 'cap', cap, 'lease', lease)

for i = 5, #ARGV do
  local id = ARGV[i]
  if not redis.call('ZSCORE', KEYS[1], id) then
    if not redis.call('ZSCORE', KEYS[2], id) then
      redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), id)
    end
    redis.call('ZADD', KEYS[3], now + waiterLease, id)
  end
end

-- Handoff: while fewer than cap permits are held, the oldest waiter becomes a holder.
local free = cap - redis.call('ZCARD', KEYS[1])
if redis.call('EXISTS', KEYS[6]) == 1 then
  free = 0
end
while free > 0 do
  local head = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #head == 0 then break end
  redis.call('ZREM', KEYS[2], head[1])
  redis.call('ZREM', KEYS[3], head[1])
  redis.call('ZADD', KEYS[1], now + lease, head[1])
  redis.call('PUBLISH', channel, head[1])
  free = free - 1
end

local reply = {redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2])}
for i = 5, #ARGV do
  local id = ARGV[i]
  if redis.call('ZSCORE', KEYS[1], id) then
    redis.call('ZADD', KEYS[1], now + lease, id) -- granted now or before: a full lease from now
    reply[#reply + 1] = 1
  else
    reply[#reply + 1] = 0
  end
end
return reply
