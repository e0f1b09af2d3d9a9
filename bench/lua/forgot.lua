-- POST /forgot for existing addresses (user<N>@bench.test) or, when
-- BENCH_UNKNOWN=1, for addresses no account has. BENCH_PATH=/signin/email
-- sends the same bodies to POST /signin/email (interface.md 19.1), which
-- takes what /forgot takes.
-- Each request comes from a client address of its own (X-Forwarded-For from
-- 10.0.0.0/8; bench/run.sh starts authd with --trusted-proxies 127.0.0.1),
-- as /forgot traffic does behind a reverse proxy: many clients, a few
-- requests each. From one address, every request would count against that
-- one client's limit and scan its window's events
-- (docs/design/performance.md#the-scenarios-requests).
-- BENCH_ONE_ADDRESS=1 sends every request from one client address
-- (10.9.9.9), as clients behind one NAT or an untrusted proxy do: the
-- forgot_one_address scenario, whose requests all count on one key.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local users = tonumber(os.getenv("BENCH_USERS") or "1000")
local domain = os.getenv("BENCH_UNKNOWN") == "1" and "@nobody.test" or "@bench.test"
local path = os.getenv("BENCH_PATH") or "/forgot"
local one_address = os.getenv("BENCH_ONE_ADDRESS") == "1"

function init(args)
  math.randomseed(os.time() + 7919 * (thread_index or 0))
end

function request()
  local body = '{"email":"user' .. math.random(1, users) .. domain .. '"}'
  local client = "10.9.9.9"
  if not one_address then
    client = "10." .. math.random(0, 255) .. "." .. math.random(0, 255) .. "." .. math.random(1, 254)
  end
  return wrk.format("POST", path,
                    {["Content-Type"] = "application/json", ["X-Forwarded-For"] = client}, body)
end
