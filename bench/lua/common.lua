-- Shared by every scenario: counts statuses per thread and, at the end,
-- prints one machine-readable line that bench/run.sh parses:
--   RESULT requests=.. duration_s=.. rps=.. p50_ms=.. p95_ms=.. p99_ms=.. errors=..
--     socket_errors=.. statuses=200:..,503:..
-- `errors` = socket errors (connect, read, write, timeout) + responses whose
-- status is not in the scenario's `allowed` set (env BENCH_ALLOWED, e.g. "200,503").

local threads = {}
local counter = 0

function setup(thread)
  thread:set("thread_index", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

statuses = {}

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if on_response then on_response(status, headers, body) end
end

-- Reads one value per line.
function read_lines(path)
  local lines = {}
  for line in io.lines(path) do
    if #line > 0 then lines[#lines + 1] = line end
  end
  return lines
end

function done(summary, latency, requests)
  local allowed = {}
  for s in string.gmatch(os.getenv("BENCH_ALLOWED") or "200", "%d+") do
    allowed[tonumber(s)] = true
  end
  local merged = {}
  for _, t in ipairs(threads) do
    local st = t:get("statuses")
    if st then
      for k, v in pairs(st) do merged[k] = (merged[k] or 0) + v end
    end
  end
  local bad = 0
  local parts = {}
  local keys = {}
  for k, _ in pairs(merged) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do
    parts[#parts + 1] = k .. ":" .. merged[k]
    if not allowed[k] then bad = bad + merged[k] end
  end
  local e = summary.errors
  local socket_errors = e.connect + e.read + e.write + e.timeout
  local seconds = summary.duration / 1e6
  io.write(string.format(
    "RESULT requests=%d duration_s=%.2f rps=%.1f p50_ms=%.3f p95_ms=%.3f p99_ms=%.3f errors=%d " ..
    "socket_errors=%d statuses=%s\n",
    summary.requests, seconds, summary.requests / seconds, latency:percentile(50) / 1000,
    latency:percentile(95) / 1000, latency:percentile(99) / 1000, bad + socket_errors, socket_errors,
    table.concat(parts, ",")))
end

-- Reads key=value lines (bench/oidc_mint.py's client file) into a table.
function read_env(path)
  local values = {}
  for line in io.lines(path) do
    local key, value = string.match(line, "^([^=]+)=(.*)$")
    if key then values[key] = value end
  end
  return values
end

-- application/x-www-form-urlencoded's encoding of one value.
function form_encode(value)
  return (string.gsub(value, "[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

-- The OpenID provider's scenarios: the client of bench/oidc_mint.py
-- (env BENCH_CLIENT) and GET /oauth2/authorize for each session token of
-- env BENCH_SESSIONS, with the scope of env BENCH_SCOPE (default openid),
-- formatted once.
function authorize_requests()
  local client = read_env(os.getenv("BENCH_CLIENT"))
  local path = "/oauth2/authorize?" .. client.authorize_query .. "&scope=" ..
               form_encode(os.getenv("BENCH_SCOPE") or "openid")
  local requests = {}
  for _, token in ipairs(read_lines(os.getenv("BENCH_SESSIONS"))) do
    requests[#requests + 1] = wrk.format("GET", path, {["Cookie"] = client.cookie .. "=" .. token})
  end
  return client, requests
end

-- POST /oauth2/token redeeming `code` (form-urlencoded, client_secret_basic).
-- All from 127.0.0.1, as one relying party's server sends them; with env
-- BENCH_SPREAD_CLIENTS=1, each from a client address of its own (through
-- X-Forwarded-For, as forgot.lua), to tell what the client address's
-- counters cost.
function token_request(client, code)
  local body = "grant_type=authorization_code&code=" .. code .. "&redirect_uri=" ..
               form_encode(client.redirect_uri) .. "&code_verifier=" .. form_encode(client.code_verifier)
  local headers = {
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["Authorization"] = client.basic,
  }
  if os.getenv("BENCH_SPREAD_CLIENTS") == "1" then
    headers["X-Forwarded-For"] =
      "10." .. math.random(0, 255) .. "." .. math.random(0, 255) .. "." .. math.random(1, 254)
  end
  return wrk.format("POST", "/oauth2/token", headers, body)
end

-- The code of a 302 from /oauth2/authorize (already form-encoded: it is
-- sent back as it came), or nil.
function code_of(headers)
  local location = headers["Location"] or headers["location"] or ""
  return string.match(location, "[?&]code=([^&]+)")
end
