#!/usr/bin/env bash
# User-space instructions per request, counted by valgrind's callgrind: a
# deterministic figure where the wall-clock scenarios of bench/run.sh vary
# by a fifth from one run to the next on a shared machine.
#
#   bash bench/instructions.sh            # after bench/run.sh has built the tools
#
# For GET /me and POST /logout on authd (one io thread, one database thread,
# a fresh 1,000-user database) and for the trivial-HTTP server, it zeroes the
# counters after a warm-up, lets wrk (-t1 -c4) run for BENCH_CG_SECONDS
# (default 8) under callgrind, and prints instructions per request and the
# ratio to the trivial server. Kernel time (system calls, scheduling) is not
# counted: that is bench/run.sh's part.
#
# Environment: AUTHD_BIN (default build-bench/authd), TRIVIAL_BIN (default
# build-bench/trivial_http), BENCH_CG_SECONDS.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build-bench
AUTHD_BIN=${AUTHD_BIN:-$BUILD/authd}
TRIVIAL_BIN=${TRIVIAL_BIN:-$BUILD/trivial_http}
SECONDS_EACH=${BENCH_CG_SECONDS:-8}
WORK=$BUILD/instructions
PORT=${BENCH_PORT:-18490}
export BENCH_LUA=$ROOT/bench/lua BENCH_USERS=1000 BENCH_THREADS=1

dpkg -s valgrind >/dev/null 2>&1 ||
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind; }
for tool in "$AUTHD_BIN" "$TRIVIAL_BIN" "$BUILD/argon2_ceiling"; do
  [ -x "$tool" ] || { echo "missing $tool: run bash bench/run.sh first" >&2; exit 1; }
done

rm -rf "$WORK"
mkdir -p "$WORK/mail"
"$BUILD/argon2_ceiling" --phc "bench password 1" >"$WORK/phc.txt"
"$AUTHD_BIN" migrate --database "sqlite:$WORK/seed.db" 2>/dev/null
python3 "$ROOT/bench/seed.py" "$WORK/seed.db" 1000 "$WORK/phc.txt" 60000 "$WORK/tokens.txt"
head -n 2000 "$WORK/tokens.txt" >"$WORK/me_tokens.txt"
tail -n +2001 "$WORK/tokens.txt" >"$WORK/logout_tokens.txt"

# Runs one server under callgrind; prints "requests instructions".
measure() { # script tokens server-command...
  local script=$1 tokens=$2
  shift 2
  rm -f "$WORK"/cg.out*
  valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$@" >"$WORK/server.log" 2>&1 &
  local pid=$!
  # Up when it answers anything (authd: 404 for /).
  for _ in $(seq 300); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/" || true)" != 000 ] && break
    sleep 0.2
  done
  export BENCH_TOKENS=$tokens BENCH_ALLOWED=200
  wrk -t1 -c4 -d3s -s "$script" "http://127.0.0.1:$PORT" >/dev/null # warm-up
  callgrind_control -z "$pid" >/dev/null 2>&1
  local requests
  requests=$(wrk -t1 -c4 -d"${SECONDS_EACH}s" -s "$script" "http://127.0.0.1:$PORT" |
    sed -n 's/^RESULT requests=\([0-9]*\).*/\1/p')
  callgrind_control -d "$pid" >/dev/null 2>&1
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
  local dump
  dump=$(ls "$WORK"/cg.out.* | sort | tail -n 1)
  echo "$requests $(sed -n 's/^summary: *//p' "$dump")"
}

AUTHD_CMD=("$AUTHD_BIN" serve --database "sqlite:$WORK/authd.db" --listen "127.0.0.1:$PORT"
  --io-threads 1 --database-threads 1 --hash-workers 1 --mail-dir "$WORK/mail" --admin-listen off
  --public-url "http://127.0.0.1:$PORT")

read -r trivial_requests trivial_ir < <(measure "$ROOT/bench/lua/trivial.lua" "" "$TRIVIAL_BIN" "$PORT" 1)
cp "$WORK/seed.db" "$WORK/authd.db" # a fresh copy for each scenario
read -r me_requests me_ir < <(measure "$ROOT/bench/lua/me.lua" "$WORK/me_tokens.txt" "${AUTHD_CMD[@]}")
cp "$WORK/seed.db" "$WORK/authd.db"
read -r logout_requests logout_ir < <(measure "$ROOT/bench/lua/logout.lua" "$WORK/logout_tokens.txt" "${AUTHD_CMD[@]}")

python3 - "$trivial_requests" "$trivial_ir" "$me_requests" "$me_ir" "$logout_requests" "$logout_ir" <<'EOF'
import sys
v = [int(x) for x in sys.argv[1:]]
trivial = v[1] / v[0]
print("user-space instructions per request (callgrind, wrk -t1 -c4):")
print(f"  trivial HTTP  {trivial:9.0f}  ({v[0]} requests)")
for name, n, ir in (("GET /me", v[2], v[3]), ("POST /logout", v[4], v[5])):
    print(f"  {name:<13} {ir / n:9.0f}  ({n} requests), {ir / n / trivial:.2f}x the trivial server")
EOF
