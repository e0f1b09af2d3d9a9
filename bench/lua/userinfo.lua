-- GET /oauth2/userinfo (interface.md 17.8) with opaque access tokens (env
-- BENCH_TOKENS: one a line, minted by bench/oidc_mint.py before the
-- scenario), formatted once, as me.lua does for GET /me.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local requests

function init(args)
  requests = {}
  for _, token in ipairs(read_lines(os.getenv("BENCH_TOKENS"))) do
    requests[#requests + 1] =
      wrk.format("GET", "/oauth2/userinfo", {["Authorization"] = "Bearer " .. token})
  end
  math.randomseed(os.time() + 7919 * (thread_index or 0))
end

function request()
  return requests[math.random(1, #requests)]
end
