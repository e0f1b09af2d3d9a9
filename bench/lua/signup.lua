-- POST /signup (authd started with --signup open) for addresses no account
-- has, each a new one (new<thread>-<n>@signup.test), or, when
-- BENCH_EXISTING=1, for existing accounts (user<N>@bench.test). Either way
-- authd hashes the password (interface.md 11.4) and queues a mail: a
-- confirmation link for a new address, the "you already have an account"
-- notice for an existing one. Client addresses as in forgot.lua: one each,
-- through X-Forwarded-For.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local users = tonumber(os.getenv("BENCH_USERS") or "1000")
local existing = os.getenv("BENCH_EXISTING") == "1"
local sent = 0

function init(args)
  math.randomseed(os.time() + 7919 * (thread_index or 0))
end

function request()
  local email
  if existing then
    email = "user" .. math.random(1, users) .. "@bench.test"
  else
    sent = sent + 1
    email = "new" .. (thread_index or 0) .. "-" .. sent .. "@signup.test"
  end
  local body = '{"email":"' .. email .. '","password":"bench password 1"}'
  local client = "10." .. math.random(0, 255) .. "." .. math.random(0, 255) .. "." .. math.random(1, 254)
  return wrk.format("POST", "/signup",
                    {["Content-Type"] = "application/json", ["X-Forwarded-For"] = client}, body)
end
