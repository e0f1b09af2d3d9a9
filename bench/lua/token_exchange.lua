-- POST /oauth2/token (interface.md 17.7) redeeming authorization codes,
-- each once (env BENCH_CODES: one a line, minted by mint_codes.lua just
-- before: a code lives 60 s), with the client of env BENCH_CLIENT
-- (client_secret_basic). Thread i of n walks codes i+1, i+1+n, ... as
-- logout.lua walks its tokens; a thread that has used all of its codes
-- repeats the last one (400 invalid_grant, counted as an error).
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

local requests
local next_index

function init(args)
  local client = read_env(os.getenv("BENCH_CLIENT"))
  local codes = read_lines(os.getenv("BENCH_CODES"))
  local stride = tonumber(os.getenv("BENCH_THREADS") or "2")
  requests = {}
  for i = (thread_index or 0) + 1, #codes, stride do
    requests[#requests + 1] = token_request(client, codes[i])
  end
  if #requests == 0 then requests[1] = token_request(client, codes[#codes]) end
  next_index = 1
end

function request()
  local i = next_index
  if i < #requests then next_index = i + 1 end
  return requests[i]
end
