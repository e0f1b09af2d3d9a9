-- POST /oauth2/token with grant_type=client_credentials (interface.md
-- 17.7): a machine client (env BENCH_CLIENT, client_secret_basic) asks for
-- an access token; each answer stores one.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local req

function init(args)
  local client = read_env(os.getenv("BENCH_CLIENT"))
  req = wrk.format("POST", "/oauth2/token", {
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["Authorization"] = client.basic,
  }, "grant_type=client_credentials")
end

function request()
  return req
end
