-- Mints authorization codes for token_exchange.lua: GET /oauth2/authorize
-- with a live session cookie (env BENCH_SESSIONS, BENCH_CLIENT,
-- BENCH_SCOPE) for as long as wrk runs; each thread writes the codes of its
-- 302s to env BENCH_CODES_OUT .. "." .. its index, one a line.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local requests
local out

function init(args)
  local _
  _, requests = authorize_requests()
  out = assert(io.open(os.getenv("BENCH_CODES_OUT") .. "." .. (thread_index or 0), "w"))
  out:setvbuf("line")  -- wrk exits without closing the thread's files
  math.randomseed(os.time() + 7919 * (thread_index or 0))
end

function request()
  return requests[math.random(1, #requests)]
end

function on_response(status, headers, body)
  local code = status == 302 and code_of(headers)
  if code then out:write(code, "\n") end
end
