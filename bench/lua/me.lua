-- GET /me with live session tokens (env BENCH_TOKENS: one token a line).
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local tokens

function init(args)
  tokens = read_lines(os.getenv("BENCH_TOKENS"))
  math.randomseed(os.time() + 7919 * (thread_index or 0))
end

function request()
  local token = tokens[math.random(1, #tokens)]
  return wrk.format("GET", "/me", {["Authorization"] = "Bearer " .. token})
end
