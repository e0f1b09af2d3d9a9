-- POST /logout, each token used once: thread i of n walks tokens i+1,
-- i+1+n, ... of env BENCH_TOKENS. Once a thread has used all of its tokens
-- it repeats the last one (401, counted as an error): pre-create enough.
-- A thread formats its requests once, in init (see me.lua).
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local requests
local next_index

function init(args)
  local tokens = read_lines(os.getenv("BENCH_TOKENS"))
  local stride = tonumber(os.getenv("BENCH_THREADS") or "2")
  requests = {}
  for i = (thread_index or 0) + 1, #tokens, stride do
    requests[#requests + 1] =
      wrk.format("POST", "/logout", {["Authorization"] = "Bearer " .. tokens[i]})
  end
  if #requests == 0 then -- more threads than tokens: repeat the last one
    requests[1] = wrk.format("POST", "/logout", {["Authorization"] = "Bearer " .. tokens[#tokens]})
  end
  next_index = 1
end

function request()
  local i = next_index
  if i < #requests then next_index = i + 1 end
  return requests[i]
end
