#!/usr/bin/env bash
# Before and after, in alternated pairs: two authd binaries measured on the
# same scenario in turn (A B A B ...), each run on a fresh copy of one seeded
# SQLite database, so that a shared machine's drift hits both alike.
#
#   bash bench/ab.sh BIN_A BIN_B SCENARIO [PAIRS]
#
# SCENARIO:
#   me      GET /me, 64 connections, 5 s: requests per second.
#   logout  POST /logout, 64 connections, 5 s: requests per second.
#   storm   logins from 2,000 connections for 10 s (the per-client cap
#           raised, so that it does no work here), with a separate client
#           sending GET /me 200 times a second on one connection meanwhile
#           (bench/paced_me.py); then logins from 32 connections alone.
#           Prints logins served per second in the storm and alone, GET /me's
#           p99 during the storm and the peak RSS.
#
# Needs what bench/run.sh installs (wrk, libargon2-dev); PAIRS defaults to 3.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
A=$1 B=$2 SCENARIO=$3 PAIRS=${4:-3}
WORK=$(mktemp -d /tmp/authd-ab.XXXXXX)
PORT=${BENCH_PORT:-18580}
export BENCH_LUA=$ROOT/bench/lua
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
ulimit -n "$(ulimit -Hn)"

g++ -O2 -std=c++20 "$ROOT/bench/argon2_ceiling.cpp" -lsodium -largon2 -pthread -o "$WORK/argon2_ceiling"
for _ in 1 2 3 4; do "$WORK/argon2_ceiling" --phc "bench password 1"; done >"$WORK/phc.txt"
"$A" migrate --database "sqlite:$WORK/seed.db" 2>/dev/null
python3 "$ROOT/bench/seed.py" "$WORK/seed.db" 1000 "$WORK/phc.txt" 400000 "$WORK/tokens.txt"
head -n 2000 "$WORK/tokens.txt" >"$WORK/me_tokens.txt"

result() { sed -n 's/^RESULT //p' "$1"; }
field() { sed -E "s/.*$1=([^ ]+).*/\\1/" <<<"$2"; }
logins_per_s() { # the 200s of a RESULT line over its duration
  local statuses duration
  statuses=$(field statuses "$1")
  duration=$(field duration_s "$1")
  awk -v s="$statuses" -v d="$duration" 'BEGIN {
    n = split(s, parts, ","); ok = 0
    for (i = 1; i <= n; i++) { split(parts[i], kv, ":"); if (kv[1] == "200") ok = kv[2] }
    printf "%.1f", ok / d }'
}

run_one() { # BIN LABEL ROUND
  local bin=$1 label=$2 round=$3
  rm -f "$WORK"/authd.db*
  cp "$WORK/seed.db" "$WORK/authd.db"
  "$bin" serve --database "sqlite:$WORK/authd.db" --listen "127.0.0.1:$PORT" --admin-listen off \
    --login-email-limit 1000000/1m --login-client-limit 1000000/1m \
    --max-connections-per-client 100000 --mail-dir "$WORK/mail" >"$WORK/authd.log" 2>&1 &
  local pid=$!
  until curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; do sleep 0.02; done
  case "$SCENARIO" in
    me)
      BENCH_TOKENS=$WORK/me_tokens.txt BENCH_ALLOWED=200 wrk -t2 -c64 -d5s --timeout 10s \
        -s "$ROOT/bench/lua/me.lua" "http://127.0.0.1:$PORT" >"$WORK/out" 2>&1 || true
      printf '%s round %s me_rps %s\n' "$label" "$round" "$(field rps "$(result "$WORK/out")")"
      ;;
    logout)
      # Every run starts at a different offset of the token list, so that no
      # token is used twice on the same copy (each copy is fresh anyway).
      BENCH_TOKENS=$WORK/tokens.txt BENCH_ALLOWED=200 wrk -t2 -c64 -d5s --timeout 10s \
        -s "$ROOT/bench/lua/logout.lua" "http://127.0.0.1:$PORT" >"$WORK/out" 2>&1 || true
      printf '%s round %s logout_rps %s\n' "$label" "$round" "$(field rps "$(result "$WORK/out")")"
      ;;
    storm)
      BENCH_USERS=1000 BENCH_ALLOWED=200,503 wrk -t1 -c2000 -d10s --timeout 10s \
        -s "$ROOT/bench/lua/login.lua" "http://127.0.0.1:$PORT" >"$WORK/storm" 2>&1 &
      local storm=$!
      sleep 1
      python3 "$ROOT/bench/paced_me.py" "$PORT" "$WORK/me_tokens.txt" 8 200 >"$WORK/me" || true
      wait "$storm" || true
      local peak
      peak=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
      sleep 2  # the storm's last answers leave
      BENCH_USERS=1000 BENCH_ALLOWED=200 wrk -t1 -c32 -d10s --timeout 10s \
        -s "$ROOT/bench/lua/login.lua" "http://127.0.0.1:$PORT" >"$WORK/alone" 2>&1 || true
      printf '%s round %s storm_logins_per_s %s alone_logins_per_s %s me_p99_ms %s storm_rps %s peak_rss_kib %s\n' \
        "$label" "$round" "$(logins_per_s "$(result "$WORK/storm")")" \
        "$(logins_per_s "$(result "$WORK/alone")")" "$(field p99_ms "$(cat "$WORK/me")")" \
        "$(field rps "$(result "$WORK/storm")")" "$peak"
      ;;
    *) echo "unknown scenario $SCENARIO" >&2; exit 2 ;;
  esac
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$PAIRS"); do
  run_one "$A" A "$round"
  run_one "$B" B "$round"
done
