#!/usr/bin/env bash
# What the audit trail costs (interface.md 14.1): login and logout
# throughput of a binary that writes events against one that does not (the
# release before them), started in turn (B, N, B, N ...), each on a fresh
# copy of one seeded SQLite database, so that a shared machine's drift hits
# both alike.
#
#   bash bench/events.sh BASE_BIN NEW_BIN [PAIRS]
#
# BASE_BIN: authd built from a commit before the events (e.g. 71bcd49);
# NEW_BIN: this one. Prints each run and, per scenario, the ratio of the
# medians (new / base). BENCH_DURATION: seconds per run (default 10);
# BENCH_ACCOUNTS: accounts seeded (default 1000, as bench/run.sh; more
# accounts spread the logouts' events over more pages of the index by
# account).
# Needs what bench/run.sh installs (wrk, libargon2-dev).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=$1 NEW=$2 PAIRS=${3:-3}
DURATION=${BENCH_DURATION:-10}
WORK=$(mktemp -d /tmp/authd-events-bench.XXXXXX)
PORT=${BENCH_PORT:-18780}
export BENCH_LUA=$ROOT/bench/lua
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
ulimit -n "$(ulimit -Hn)"

g++ -O2 -std=c++20 "$ROOT/bench/argon2_ceiling.cpp" -lsodium -largon2 -pthread -o "$WORK/argon2_ceiling"
for _ in 1 2 3 4; do "$WORK/argon2_ceiling" --phc "bench password 1"; done >"$WORK/phc.txt"
# Seeded by the older binary: the newer one migrates its copy at start.
"$BASE" migrate --database "sqlite:$WORK/seed.db" 2>/dev/null
SESSIONS=$((DURATION * 30000 + 20000))  # logout uses each token once
ACCOUNTS=${BENCH_ACCOUNTS:-1000}
/usr/bin/python3 "$ROOT/bench/seed.py" "$WORK/seed.db" "$ACCOUNTS" "$WORK/phc.txt" "$SESSIONS" \
  "$WORK/tokens.txt"

run_one() { # LABEL BIN
  local label=$1 bin=$2
  rm -rf "$WORK"/authd.db* "$WORK/mail"
  cp "$WORK/seed.db" "$WORK/authd.db"
  "$bin" serve --database "sqlite:$WORK/authd.db" --listen "127.0.0.1:$PORT" --admin-listen off \
    --login-email-limit 1000000/1m --login-client-limit 1000000/1m \
    --max-connections-per-client 100000 --mail-dir "$WORK/mail" >"$WORK/authd.log" 2>&1 &
  local pid=$!
  until curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; do sleep 0.02; done
  local scenario conns script
  for scenario in login logout; do
    if [ "$scenario" = login ]; then conns=32 script=login.lua; else conns=64 script=logout.lua; fi
    BENCH_TOKENS=$WORK/tokens.txt BENCH_USERS=$ACCOUNTS BENCH_THREADS=2 BENCH_ALLOWED=200 \
      wrk -t2 -c"$conns" -d"${DURATION}s" --timeout 10s -s "$ROOT/bench/lua/$script" \
      "http://127.0.0.1:$PORT" >"$WORK/out" 2>&1 || true
    printf '%s %s %s\n' "$label" "$scenario" "$(sed -n 's/^RESULT //p' "$WORK/out")"
  done
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
}

echo "accounts: $ACCOUNTS; machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$PAIRS"); do
  run_one base "$BASE"
  run_one events "$NEW"
done | tee "$WORK/runs"
median() { # LABEL SCENARIO: the median of its runs' requests per second
  sed -n "s/^$1 $2 .*rps=\([^ ]*\) .*/\1/p" "$WORK/runs" | sort -n |
    awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
for scenario in login logout; do
  awk -v s="$scenario" -v b="$(median base "$scenario")" -v n="$(median events "$scenario")" \
    'BEGIN { printf "%s: median rps without events %s, with %s; with / without = %.2f\n", s, b, n, n / b }'
done
