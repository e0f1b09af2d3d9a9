-- GET /me with live session tokens (env BENCH_TOKENS: one token a line).
-- The requests are formatted once, in init: formatted per request, wrk's Lua
-- cost about a tenth of the trivial ceiling on two shared cores, a cost of
-- the client that the trivial server's static request does not pay
-- (docs/design/performance.md#the-scenarios-requests).
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local requests

function init(args)
  requests = {}
  for _, token in ipairs(read_lines(os.getenv("BENCH_TOKENS"))) do
    requests[#requests + 1] = wrk.format("GET", "/me", {["Authorization"] = "Bearer " .. token})
  end
  math.randomseed(os.time() + 7919 * (thread_index or 0))
end

function request()
  return requests[math.random(1, #requests)]
end
