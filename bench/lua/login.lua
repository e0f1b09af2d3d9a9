-- POST /login over many users (env BENCH_USERS: users are user<N>@bench.test,
-- N from 1), with the right password or, when BENCH_WRONG=1, a wrong one.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local users = tonumber(os.getenv("BENCH_USERS") or "1000")
local password = os.getenv("BENCH_WRONG") == "1" and "not the password" or "bench password 1"

function init(args)
  math.randomseed(os.time() + 7919 * (thread_index or 0))
end

function request()
  local n = math.random(1, users)
  local body = '{"email":"user' .. n .. '@bench.test","password":"' .. password .. '"}'
  return wrk.format("POST", "/login", {["Content-Type"] = "application/json"}, body)
end
