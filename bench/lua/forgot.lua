-- POST /forgot for existing addresses (user<N>@bench.test) or, when
-- BENCH_UNKNOWN=1, for addresses no account has.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local users = tonumber(os.getenv("BENCH_USERS") or "1000")
local domain = os.getenv("BENCH_UNKNOWN") == "1" and "@nobody.test" or "@bench.test"

function init(args)
  math.randomseed(os.time() + 7919 * (thread_index or 0))
end

function request()
  local body = '{"email":"user' .. math.random(1, users) .. domain .. '"}'
  return wrk.format("POST", "/forgot", {["Content-Type"] = "application/json"}, body)
end
