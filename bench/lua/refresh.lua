-- POST /oauth2/token with grant_type=refresh_token (interface.md 17.10):
-- every answer rotates the token, so each thread keeps a queue of live
-- refresh tokens (env BENCH_REFRESH: one a line, minted by
-- bench/oidc_mint.py refresh before the scenario; thread i of n takes
-- lines i+1, i+1+n, ...), sends the oldest and queues the one each 200
-- brings back. wrk calls request() and response() per thread, not per
-- connection: a thread must hold more tokens than its connections, or it
-- sends a used one (400 invalid_grant, an error, which also revokes that
-- family). The client is env BENCH_CLIENT's (client_secret_basic).
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local client
local queue = {}
local first = 1
local last = 0

local function push(token)
  last = last + 1
  queue[last] = token
end

local function refresh_request(token)
  return wrk.format("POST", "/oauth2/token", {
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["Authorization"] = client.basic,
  }, "grant_type=refresh_token&refresh_token=" .. token)
end

function init(args)
  client = read_env(os.getenv("BENCH_CLIENT"))
  local tokens = read_lines(os.getenv("BENCH_REFRESH"))
  local stride = tonumber(os.getenv("BENCH_THREADS") or "2")
  for i = (thread_index or 0) + 1, #tokens, stride do push(tokens[i]) end
end

function request()
  if first > last then return refresh_request("authdrf_exhausted") end
  local token = queue[first]
  queue[first] = nil
  first = first + 1
  return refresh_request(token)
end

function on_response(status, headers, body)
  if status ~= 200 then return end
  local token = string.match(body, '"refresh_token"%s*:%s*"([^"]+)"')
  if token then push(token) end
end
