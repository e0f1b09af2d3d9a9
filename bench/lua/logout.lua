-- POST /logout, each token used once: thread i of n walks tokens i+1,
-- i+1+n, ... of env BENCH_TOKENS. Once a thread has used all of its tokens
-- it repeats the last one (401, counted as an error): pre-create enough.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local tokens
local next_index
local stride

function init(args)
  tokens = read_lines(os.getenv("BENCH_TOKENS"))
  stride = tonumber(os.getenv("BENCH_THREADS") or "2")
  next_index = (thread_index or 0) + 1
end

function request()
  local i = next_index
  if i > #tokens then i = #tokens else next_index = next_index + stride end
  return wrk.format("POST", "/logout", {["Authorization"] = "Bearer " .. tokens[i]})
end
