#!/usr/bin/env bash
# The benchmark, in one command (from the repository root or anywhere):
#
#   bash bench/run.sh
#
# Installs what it needs, builds authd (Release, in build-bench/) and the
# bench tools, measures the two ceilings, seeds fresh SQLite databases with
# 1,000 and 1,000,000 users, drives authd with wrk, prints the table and
# writes docs/performance.md (the generated section) and docs/performance.png.
#
# Environment: BENCH_DURATION (seconds per scenario, default 10),
# AUTHD_BIN (an already built authd, skips the build), BENCH_SKIP_LARGE=1
# (no 1,000,000-user database).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
DURATION=${BENCH_DURATION:-10}
BUILD=$ROOT/build-bench
WORK=$BUILD/run
PORT=${BENCH_PORT:-18480}
TRIVIAL_PORT=$((PORT + 1))
THREADS=2  # wrk threads
export BENCH_LUA=$ROOT/bench/lua
mkdir -p "$BUILD" "$WORK"

log() { printf '\n== %s\n' "$*" >&2; }

# --- 0. what we need ----------------------------------------------------------
missing=()
for pkg in $(grep -v '^#' bench/packages.txt); do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ -z "${AUTHD_BIN:-}" ] && [ -f scripts/install-deps.sh ]; then bash scripts/install-deps.sh; fi
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
ulimit -n "$(ulimit -Hn)"
[ "$(ulimit -n)" -ge 12000 ] || ulimit -n 65536 || true

# --- 1. build -----------------------------------------------------------------
if [ -z "${AUTHD_BIN:-}" ]; then
  log "building authd (Release) in build-bench/"
  flock /tmp/authd-build.lock sh -c "cmake -S . -B '$BUILD' -G Ninja -DCMAKE_BUILD_TYPE=Release -DAUTHD_TESTS=OFF >/dev/null && ninja -C '$BUILD' authd"
  AUTHD_BIN=$BUILD/authd
fi
log "building the bench tools"
[ "$BUILD/argon2_ceiling" -nt bench/argon2_ceiling.cpp ] ||
  g++ -O2 -std=c++20 -Wall -Wextra bench/argon2_ceiling.cpp -lsodium -largon2 -pthread -o "$BUILD/argon2_ceiling"
[ "$BUILD/trivial_http" -nt bench/trivial_http.cpp ] ||
  g++ -O2 -std=c++20 -Wall -Wextra bench/trivial_http.cpp -pthread -o "$BUILD/trivial_http"

# The machine may be shared: wait (at most BENCH_QUIET_WAIT seconds, default
# 120) for the 1-minute load average to fall below 1, and record it.
for _ in $(seq "${BENCH_QUIET_WAIT:-120}"); do
  awk '{exit !($1 < 1.0)}' /proc/loadavg && break
  sleep 1
done

CORES=$(nproc)
CEIL=$WORK/ceilings.env
RESULTS=$WORK/results.tsv
: >"$RESULTS"
{
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "command=bash bench/run.sh (BENCH_DURATION=$DURATION)"
  echo "nproc=$CORES"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  echo "kernel=$(uname -r)"
  echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "hash_workers=$CORES"
  echo "argon2_memory_kib=19456"
  echo "argon2_iterations=2"
  echo "wrk_threads=$THREADS"
  echo "authd_build=$AUTHD_BIN"
} >"$CEIL"

# --- 2. ceilings --------------------------------------------------------------
log "ceiling: argon2id (libsodium, m=19456 KiB, t=2, $CORES threads)"
line=$("$BUILD/argon2_ceiling" --impl sodium --threads "$CORES" --seconds "$DURATION")
echo "$line" >&2
for kv in $line; do
  case $kv in
    hashes_per_s=*) echo "argon2_hashes_per_s=${kv#*=}" ;;
    wall_ms=* | user_ms=* | sys_ms=* | minflt=*) echo "argon2_$kv" ;;
  esac
done >>"$CEIL"

log "authd's hashing: libsodium with warm memory per worker (as in crypto/password_hasher.cpp)"
line=$("$BUILD/argon2_ceiling" --impl sodium-warm --threads "$CORES" --seconds "$DURATION")
echo "$line" >&2
for kv in $line; do
  case $kv in
    hashes_per_s=* | wall_ms=* | user_ms=* | sys_ms=* | minflt=*) echo "warm_$kv" ;;
  esac
done >>"$CEIL"

# Runs wrk; prints the RESULT line's fields as "rps p50 p99 errors socket statuses".
run_wrk() { # conns script url [extra wrk args]
  local conns=$1 script=$2 url=$3
  shift 3
  wrk -t"$THREADS" -c"$conns" -d"${DURATION}s" --timeout 10s -s "$script" "$@" "$url" >"$WORK/wrk.out" 2>&1 || true
  local r
  r=$(grep '^RESULT' "$WORK/wrk.out" || true)
  if [ -z "$r" ]; then
    cat "$WORK/wrk.out" >&2
    echo "0 0 0 1 1 none"
    return
  fi
  echo "$r" | sed -E 's/.*rps=([^ ]+) p50_ms=([^ ]+) p99_ms=([^ ]+) errors=([^ ]+) socket_errors=([^ ]+) statuses=([^ ]*).*/\1 \2 \3 \4 \5 \6/'
}

log "ceiling: trivial HTTP"
"$BUILD/trivial_http" "$TRIVIAL_PORT" "$CORES" &
TRIVIAL_PID=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$TRIVIAL_PORT/" >/dev/null 2>&1 && break; sleep 0.05; done
read -r rps p50 p99 _ _ _ < <(BENCH_ALLOWED=200 run_wrk 64 bench/lua/trivial.lua "http://127.0.0.1:$TRIVIAL_PORT")
kill "$TRIVIAL_PID"
wait "$TRIVIAL_PID" 2>/dev/null || true
TRIVIAL_RPS=$rps
printf 'trivial_rps=%s\ntrivial_p50_ms=%s\ntrivial_p99_ms=%s\ntrivial_conc=64\n' "$rps" "$p50" "$p99" >>"$CEIL"
echo "trivial HTTP: $rps req/s" >&2

# --- 3. authd on seeded databases ---------------------------------------------
PHC=$WORK/phc.txt
for _ in 1 2 3 4; do "$BUILD/argon2_ceiling" --phc "bench password 1"; done >"$PHC"

AUTHD_PID=
stop_authd() {
  if [ -n "$AUTHD_PID" ]; then
    kill -TERM "$AUTHD_PID" 2>/dev/null || true
    wait "$AUTHD_PID" 2>/dev/null || true
    AUTHD_PID=
  fi
}
trap 'stop_authd; if [ -n "${TRIVIAL_PID:-}" ]; then kill "$TRIVIAL_PID" 2>/dev/null || true; fi' EXIT

reset_peak() { echo 5 >"/proc/$AUTHD_PID/clear_refs" 2>/dev/null || true; }
peak_kib() { awk '/^VmHWM/ {print $2}' "/proc/$AUTHD_PID/status"; }

record() { # scenario users conns "rps p50 p99 errors socket statuses"
  local scenario=$1 users=$2 conns=$3
  read -r rps p50 p99 errors sock statuses <<<"$4"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scenario" "$users" "$conns" "$rps" "$p50" \
    "$p99" "$errors" "$sock" "$statuses" "$(peak_kib)" >>"$RESULTS"
  printf '%-22s %8s users %5s conns: %9s req/s  p50 %8s ms  p99 %8s ms  errors %s  [%s]  peak RSS %s KiB\n' \
    "$scenario" "$users" "$conns" "$rps" "$p50" "$p99" "$errors" "$statuses" "$(peak_kib)" >&2
}

scenario() { # name users conns allowed script [VAR=value...]
  local name=$1 users=$2 conns=$3 allowed=$4 script=$5
  shift 5
  reset_peak
  local out
  out=$(
    export BENCH_ALLOWED="$allowed" BENCH_USERS="$users" BENCH_THREADS="$THREADS"
    for kv in "$@"; do export "${kv?}"; done
    run_wrk "$conns" "$script" "http://127.0.0.1:$PORT"
  )
  record "$name" "$users" "$conns" "$out"
}

for USERS in 1000 1000000; do
  if [ "$USERS" = 1000000 ] && [ "${BENCH_SKIP_LARGE:-0}" = 1 ]; then continue; fi
  DIR=$WORK/db-$USERS
  rm -rf "$DIR"
  mkdir -p "$DIR/mail"
  DB=$DIR/authd.db
  # Each logout uses a token once, so the seed must outlast the fastest
  # logout this machine can serve: half the trivial ceiling of this run
  # (logout has never come near that), and at least 30,000 a second. A run
  # that still runs out answers 401s, which the report counts as errors.
  PER_SECOND=$(awk -v t="$TRIVIAL_RPS" 'BEGIN {n = int(t / 2); print (n > 30000 ? n : 30000)}')
  SESSIONS=$((DURATION * PER_SECOND + 20000))
  log "seeding $USERS users and $SESSIONS sessions"
  "$AUTHD_BIN" migrate --database "sqlite:$DB" 2>/dev/null
  t0=$(date +%s.%N)
  python3 bench/seed.py "$DB" "$USERS" "$PHC" "$SESSIONS" "$DIR/tokens.txt"
  echo "seed_s_$USERS=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $t0}")" >>"$CEIL"
  head -n 2000 "$DIR/tokens.txt" >"$DIR/me_tokens.txt"
  tail -n +2001 "$DIR/tokens.txt" >"$DIR/logout_tokens.txt"
  sync

  log "starting authd ($USERS users)"
  t0=$(date +%s%N)
  "$AUTHD_BIN" serve --database "sqlite:$DB" --listen "127.0.0.1:$PORT" \
    --login-email-limit 10000/1s --login-client-limit 10000/1s \
    --forgot-client-limit 10000/1s --reset-mail-limit-short 10000/1s \
    --reset-mail-limit-long 10000/1s --mail-dir "$DIR/mail" \
    --public-url "http://127.0.0.1:$PORT" >"$DIR/authd.log" 2>&1 &
  AUTHD_PID=$!
  until curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; do
    kill -0 "$AUTHD_PID" 2>/dev/null || { cat "$DIR/authd.log" >&2; exit 1; }
    sleep 0.005
  done
  echo "startup_ms_$USERS=$((($(date +%s%N) - t0) / 1000000))" >>"$CEIL"
  tail -n1 "$CEIL" >&2

  export BENCH_TOKENS=$DIR/me_tokens.txt
  # Warm-up, not measured: GET /me is measured in its steady state, with
  # its sessions' pages in the read connection's cache (a fresh process
  # reads about 6,000 pages first; docs/performance.md, section 15).
  BENCH_ALLOWED=200 run_wrk 64 bench/lua/me.lua "http://127.0.0.1:$PORT" -d2s >/dev/null
  scenario me "$USERS" 64 200 bench/lua/me.lua
  scenario login_ok "$USERS" 32 200 bench/lua/login.lua
  if [ "$USERS" = 1000 ]; then
    scenario logout "$USERS" 64 200 bench/lua/logout.lua BENCH_TOKENS="$DIR/logout_tokens.txt"
    scenario login_wrong "$USERS" 32 401 bench/lua/login.lua BENCH_WRONG=1

    # GET /me while a login flood keeps the hashing pool saturated.
    reset_peak
    BENCH_ALLOWED=200,503 BENCH_USERS=$USERS wrk -t1 -c64 -d"$((DURATION + 4))s" --timeout 10s \
      -s bench/lua/login.lua "http://127.0.0.1:$PORT" >"$WORK/flood.out" 2>&1 &
    FLOOD=$!
    sleep 2
    scenario me_under_login_flood "$USERS" 4 200 bench/lua/me.lua
    wait "$FLOOD" || true
    grep RESULT "$WORK/flood.out" | sed 's/^/  (the flood) /' >&2 || true

    scenario flood_5000 "$USERS" 5000 200,503 bench/lua/login.lua
    scenario forgot_unknown "$USERS" 64 200 bench/lua/forgot.lua BENCH_UNKNOWN=1
    scenario forgot_existing "$USERS" 64 200 bench/lua/forgot.lua
  fi
  stop_authd
done

# --- 4. the table, the doc, the plot ------------------------------------------
log "report"
echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$CEIL"
python3 bench/report.py "$RESULTS" "$CEIL" docs/performance.md docs/performance.png "$WORK"
echo "docs/performance.md and docs/performance.png written" >&2
