-- Whole browserless code flows (interface.md 17.4-17.7): GET
-- /oauth2/authorize with a live session cookie (env BENCH_SESSIONS,
-- BENCH_CLIENT, BENCH_SCOPE), the code read from the 302's Location, then
-- POST /oauth2/token redeeming it. wrk calls request() and response() per
-- thread, not per connection, so a thread keeps the codes its 302s brought
-- and its next request redeems one when there is one: half the requests
-- are authorizations, half exchanges, and a flow is a 200 of the token
-- endpoint (bench/report.py counts flows a second from the 200s).
-- A 302 without a code (to the sign-in page, or an error redirect) is
-- counted as status 399, which no scenario allows.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local client
local authorizations
local codes = {}

function init(args)
  client, authorizations = authorize_requests()
  math.randomseed(os.time() + 7919 * (thread_index or 0))
end

function request()
  local code = table.remove(codes)
  if code then return token_request(client, code) end
  return authorizations[math.random(1, #authorizations)]
end

function on_response(status, headers, body)
  if status ~= 302 then return end
  local code = code_of(headers)
  if code then
    codes[#codes + 1] = code
  else
    statuses[302] = statuses[302] - 1
    statuses[399] = (statuses[399] or 0) + 1
  end
end
