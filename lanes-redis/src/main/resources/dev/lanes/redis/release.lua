-- Gives back permits and withdraws waiters; wakes the other instances when a permit came free.
-- KEYS[1] holders, KEYS[2] waiters, KEYS[3] waiter expiry
-- ARGV: release channel, ids...
-- Returns how many permits were released (a waiter id or an unknown id counts 0).
local released = 0
for i = 2, #ARGV do
  released = released + redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('ZREM', KEYS[2], ARGV[i])
  redis.call('ZREM', KEYS[3], ARGV[i])
end
if released > 0 then
  redis.call('PUBLISH', ARGV[1], released)
end
return released
