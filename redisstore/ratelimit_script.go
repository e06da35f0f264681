package redisstore

import "github.com/redis/go-redis/v9"

// gcraScript is GCRA, as middleware's gcra computes it, in one Lua script.
//
// KEYS[1] holds tat, the time at which the bucket is full again, in Unix
// nanoseconds as a decimal string; absent means a full bucket. ARGV is now
// (seconds, and nanoseconds within the second), the interval between tokens
// and the whole bucket's refill time burst*interval, both in nanoseconds. It
// returns {allowed (0 or 1), remaining, retry after, reset}, durations in
// nanoseconds.
//
// Lua numbers are doubles: exact integers only up to 2^53, while Unix
// nanoseconds are near 2^61. So the script never forms a Unix nanosecond
// count: it splits the stored tat into seconds and nanoseconds, works with
// tat - now (bounded by the refill window, exact below 2^53 ns: 104 days),
// and writes now + next back as seconds followed by nine digits. Its
// divisions are corrected to exact floor division, since x / d in doubles
// may round up to the next integer.
var gcraScript = redis.NewScript(`
local now_s = tonumber(ARGV[1])
local now_ns = tonumber(ARGV[2])
local interval = tonumber(ARGV[3])
local window = tonumber(ARGV[4])

-- floor(x / d) and x - floor(x / d) * d, exact for integers below 2^53.
local function divmod(x, d)
  local q = math.floor(x / d)
  local r = x - q * d
  if r < 0 then
    q = q - 1
    r = r + d
  elseif r >= d then
    q = q + 1
    r = r - d
  end
  return q, r
end

-- tat - now, in nanoseconds: 0 for a new key or a full bucket.
local delta = 0
local v = redis.call('GET', KEYS[1])
if v then
  local ns = tonumber(string.sub(v, -9))
  if ns then
    local s = tonumber(string.sub(v, 1, -10)) or 0
    delta = (s - now_s) * 1e9 + (ns - now_ns)
  end
end
if delta < 0 then
  delta = 0
end

local next = delta + interval
local allow_at = next - window
if allow_at > 0 then
  return {0, 0, allow_at, delta}
end
local remaining = divmod(-allow_at, interval)

local carry, rest = divmod(now_ns + next, 1e9)
redis.call('SET', KEYS[1], string.format('%d%09d', now_s + carry, rest), 'PX', math.ceil(next / 1e6))
return {1, remaining, 0, next}
`)

// refundScript gives a token back: it moves the tat of KEYS[1] one interval
// earlier, with the same arithmetic as gcraScript (ARGV is now as seconds and
// nanoseconds, and the interval in nanoseconds). A key that is absent, or
// whose bucket the refund fills, is deleted (absent means full). It returns
// the new tat - now in nanoseconds, 0 for a full bucket.
var refundScript = redis.NewScript(`
local now_s = tonumber(ARGV[1])
local now_ns = tonumber(ARGV[2])
local interval = tonumber(ARGV[3])

local function divmod(x, d)
  local q = math.floor(x / d)
  local r = x - q * d
  if r < 0 then
    q = q - 1
    r = r + d
  elseif r >= d then
    q = q + 1
    r = r - d
  end
  return q, r
end

local v = redis.call('GET', KEYS[1])
if not v then
  return 0
end
local ns = tonumber(string.sub(v, -9))
if not ns then
  redis.call('DEL', KEYS[1])
  return 0
end
local s = tonumber(string.sub(v, 1, -10)) or 0
local delta = (s - now_s) * 1e9 + (ns - now_ns) - interval
if delta <= 0 then
  redis.call('DEL', KEYS[1])
  return 0
end
local carry, rest = divmod(now_ns + delta, 1e9)
redis.call('SET', KEYS[1], string.format('%d%09d', now_s + carry, rest), 'PX', math.ceil(delta / 1e6))
return delta
`)
