-- pipeline.lua: HTTP/1.1 pipelining for wrk, as TechEmpower loads plaintext.
-- Each write carries DEPTH copies of the request (the script's first
-- argument, default 16): wrk -s wrk/pipeline.lua URL -- 16
init = function(args)
  local depth = tonumber(args[1]) or 16
  local r = {}
  for i = 1, depth do
    r[i] = wrk.format()
  end
  req = table.concat(r)
end

request = function()
  return req
end
