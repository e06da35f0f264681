-- site.lua: wrk script of bench/laravel/run.sh.
--   WRK_COOKIES=file  every request carries the Cookie header in the file's
--                     first line (first field): the signed-in scenarios.
--   WRK_LOGIN=file    POST /login, one line of the file per request
--                     ("COOKIE<TAB>TOKEN" from tokens.py, each line once,
--                     the threads taking lines in turn), the token in the
--                     form field WRK_CSRF_FIELD; a 200 (the form again: a
--                     refused password) counts as a failure as well.
-- done() prints one RESULT line: requests, seconds, failures (status 400
-- and up, socket errors, and in login mode any answer but 303),
-- p50 and p99 latency in microseconds.
local threads = {}
local counter = 0

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local function lines(path)
  local t = {}
  for l in io.lines(path) do
    if l ~= "" then table.insert(t, l) end
  end
  return t
end

local function urlencode(s)
  return (s:gsub("[^%w%-_%.~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

local cookies = os.getenv("WRK_COOKIES")
if cookies and cookies ~= "" then
  local first = lines(cookies)[1]
  wrk.headers["Cookie"] = first:match("^([^\t]*)")
end

local login = os.getenv("WRK_LOGIN")
if login and login ~= "" then
  local reqs, n = {}, 0
  bad = 0 -- a global: done() reads it with thread:get

  function init(args)
    local field = os.getenv("WRK_CSRF_FIELD") or "csrf_token"
    local all = lines(login)
    -- this thread's share: lines id+1, id+1+nthreads, ...
    local step = tonumber(os.getenv("WRK_THREADS") or "1")
    for i = id + 1, #all, step do
      local cookie, token = all[i]:match("^([^\t]*)\t(.*)$")
      local body = field .. "=" .. urlencode(token) .. "&email=demo%40example.com&password=demo-password"
      table.insert(reqs, wrk.format("POST", "/login", {
        ["Cookie"] = cookie,
        ["Content-Type"] = "application/x-www-form-urlencoded",
      }, body))
    end
  end

  function request()
    n = n + 1
    return reqs[(n - 1) % #reqs + 1]
  end

  function response(status, headers, body)
    if status ~= 303 and status < 400 then bad = bad + 1 end
  end
end

function done(summary, latency, requests)
  local extra = 0
  if login and login ~= "" then
    for _, t in ipairs(threads) do extra = extra + (t:get("bad") or 0) end
  end
  local e = summary.errors
  local failures = e.status + e.connect + e.read + e.write + e.timeout + extra
  io.write(string.format("RESULT requests=%d seconds=%.3f failures=%d p50=%d p99=%d\n",
    summary.requests, summary.duration / 1e6, failures,
    latency:percentile(50), latency:percentile(99)))
end
