-- POST /oauth2/introspect (interface.md 17.11, RFC 7662) of opaque access
-- tokens (env BENCH_TOKENS: one a line, minted by bench/oidc_mint.py
-- before the scenario) by a resource server registered with
-- introspection: true (env BENCH_CLIENT, client_secret_basic), formatted
-- once, as userinfo.lua does.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local requests

function init(args)
  local client = read_env(os.getenv("BENCH_CLIENT"))
  requests = {}
  for _, token in ipairs(read_lines(os.getenv("BENCH_TOKENS"))) do
    requests[#requests + 1] = wrk.format("POST", "/oauth2/introspect", {
      ["Content-Type"] = "application/x-www-form-urlencoded",
      ["Authorization"] = client.basic,
    }, "token=" .. token .. "&token_type_hint=access_token")
  end
  math.randomseed(os.time() + 7919 * (thread_index or 0))
end

function request()
  return requests[math.random(1, #requests)]
end
