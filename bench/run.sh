#!/usr/bin/env bash
# The benchmark, in one command (from the repository root or anywhere):
#
#   bash bench/run.sh
#
# Installs what it needs, builds authd (Release, in build-bench/) and the
# bench tools, measures the ceilings (argon2id, trivial HTTP and, for
# PostgreSQL, a default PostgreSQL 15 cluster's own select and insert rates
# with pgbench: bench/postgres.sh), then per backend seeds fresh databases
# (SQLite: 1,000 and 1,000,000 users; PostgreSQL: 1,000), drives authd with
# wrk, prints the table and writes docs/design/performance.md (the generated
# section), docs/design/performance.png, docs/design/benchmarks.md and docs/design/benchmarks.png.
#
# Environment: BENCH_DURATION (seconds per scenario, default 10),
# BENCH_BACKENDS (default "sqlite postgres"), AUTHD_BIN (an already built
# authd, skips the build), BENCH_SKIP_LARGE=1 (no 1,000,000-user SQLite
# database), BENCH_PG_LARGE=1 (a 1,000,000-user PostgreSQL database as well),
# BENCH_QUIET_WAIT (seconds to wait for a quiet machine, default 120),
# BENCH_POOLER=pgbouncer (only the PgBouncer comparison: bench/pooler.sh),
# BENCH_SCENARIOS (only these scenarios, by name, separated by commas or
# spaces, e.g. "me,logout,userinfo": the ceilings are measured all the same,
# the 1,000,000-user data sets only for me or login_ok, and the report
# rewrites only the OpenID provider's section of the docs; default: all),
# BENCH_PERF=PREFIX (a system-wide `perf record -g` of the middle of each
# scenario, written to PREFIX.BACKEND.SCENARIO.data, perf's messages to .log;
# needs perf, Debian's linux-perf; it disturbs the rates it records, and the
# recorded command says so), BENCH_PERF_ARGS (perf record's options,
# default "-a -g"; "-a -F 499 --call-graph dwarf,16384" follows the
# coroutines' frames, which frame pointers do not).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# BENCH_POOLER=pgbouncer: only authd behind PgBouncer (transaction pooling)
# against authd on the same cluster directly (interface.md 20.3), with
# BENCH_DURATION and AUTHD_BIN as below: bench/pooler.sh.
if [ "${BENCH_POOLER:-}" = pgbouncer ]; then
  exec bash "$ROOT/scripts/with-pgbouncer.sh" bash "$ROOT/bench/pooler.sh"
fi
DURATION=${BENCH_DURATION:-10}
BACKENDS=${BENCH_BACKENDS:-sqlite postgres}
BUILD=$ROOT/build-bench
WORK=$BUILD/run
PORT=${BENCH_PORT:-18480}
TRIVIAL_PORT=$((PORT + 1))
THREADS=2  # wrk threads
PY=/usr/bin/python3  # Debian's (bench/packages.txt), not whatever python3 is first on PATH
export BENCH_LUA=$ROOT/bench/lua
SCENARIOS=${BENCH_SCENARIOS:-}
read -ra SCENARIO_LIST <<<"${SCENARIOS//,/ }"
SCENARIOS="${SCENARIO_LIST[*]}"
# The OpenID provider's scenarios (authd runs with --oidc on for all).
OIDC_SCENARIOS=(userinfo token_exchange token_exchange_es256 token_exchange_plain code_flow refresh introspect
  client_credentials)
KNOWN_SCENARIOS=(me login_ok logout login_wrong mixed_me mixed_login me_under_login_flood flood_5000
  forgot_unknown forgot_existing forgot_one_address email_signin_unknown email_signin_existing signup_new signup_existing
  logout_cold "${OIDC_SCENARIOS[@]}")
for name in "${SCENARIO_LIST[@]}"; do
  case " ${KNOWN_SCENARIOS[*]} " in
    *" $name "*) ;;
    *) echo "BENCH_SCENARIOS: no scenario '$name' (known: ${KNOWN_SCENARIOS[*]})" >&2; exit 2 ;;
  esac
done
mkdir -p "$BUILD" "$WORK"

log() { printf '\n== %s\n' "$*" >&2; }
has_backend() { case " $BACKENDS " in *" $1 "*) return 0 ;; esac; return 1; }
wanted() { # scenario: whether BENCH_SCENARIOS (empty: all) names it
  [ -z "$SCENARIOS" ] && return 0
  case " $SCENARIOS " in *" $1 "*) return 0 ;; esac
  return 1
}
any_wanted() { # scenario...
  local s
  for s in "$@"; do wanted "$s" && return 0; done
  return 1
}
for backend in $BACKENDS; do
  case $backend in
    sqlite | postgres) ;;
    *) echo "BENCH_BACKENDS: sqlite and/or postgres, not '$backend'" >&2; exit 2 ;;
  esac
done
# shellcheck source=bench/postgres.sh
. "$ROOT/bench/postgres.sh"

# --- 0. what we need ----------------------------------------------------------
missing=()
while read -r pkg; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done < <(grep -v -e '^#' -e '^ *$' bench/packages.txt)
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

# The command as typed, with the settings that were given.
COMMAND="bash bench/run.sh"
for var in AUTHD_BIN BENCH_QUIET_WAIT BENCH_PG_LARGE BENCH_SKIP_LARGE BENCH_BACKENDS BENCH_SCENARIOS BENCH_DURATION \
  BENCH_PERF BENCH_PERF_ARGS; do
  if [ -n "${!var:-}" ]; then COMMAND="$var=${!var} $COMMAND"; fi
done
CORES=$(nproc)
CEIL=$WORK/ceilings.env
RESULTS=$WORK/results.tsv
: >"$RESULTS"
{
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "command=$COMMAND"
  echo "duration_s=$DURATION"
  echo "backends=$BACKENDS"
  echo "scenarios=$SCENARIOS"
  echo "nproc=$CORES"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  echo "mem_total_kib=$(awk '/^MemTotal/ {print $2}' /proc/meminfo)"
  echo "kernel=$(uname -r)"
  echo "os=Debian $(cat /etc/debian_version 2>/dev/null || echo '?')"
  echo "work_fs=$(df --output=fstype "$WORK" | tail -n1 | tr -d ' ')"
  echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "hash_workers=$CORES"
  echo "argon2_memory_kib=19456"
  echo "argon2_iterations=2"
  echo "wrk_threads=$THREADS"
  echo "wrk_version=$(wrk -v 2>&1 | awk 'NR == 1 {print $2}')"
  echo "sqlite_version=$(dpkg-query -W -f '${Version}' libsqlite3-0 2>/dev/null || echo '?')"
  echo "authd_build=$AUTHD_BIN"
  echo "authd_commit=$(git describe --always --dirty 2>/dev/null || echo '?')"
} >"$CEIL"

AUTHD_PID=
stop_authd() {
  if [ -n "$AUTHD_PID" ]; then
    kill -TERM "$AUTHD_PID" 2>/dev/null || true
    wait "$AUTHD_PID" 2>/dev/null || true
    AUTHD_PID=
  fi
}
cleanup() {
  stop_authd
  if [ -n "${TRIVIAL_PID:-}" ]; then kill "$TRIVIAL_PID" 2>/dev/null || true; fi
  pg_stop
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

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

# Runs wrk; prints the RESULT line's fields as "rps p50 p95 p99 errors socket statuses".
run_wrk() { # conns script url [extra wrk args]
  local conns=$1 script=$2 url=$3
  shift 3
  local out=${WRK_OUT:-$WORK/wrk.out}
  wrk -t"$THREADS" -c"$conns" -d"${DURATION}s" --timeout 10s -s "$script" "$@" "$url" >"$out" 2>&1 || true
  local r
  r=$(grep '^RESULT' "$out" || true)
  if [ -z "$r" ]; then
    cat "$out" >&2
    echo "0 0 0 0 1 1 none"
    return
  fi
  echo "$r" | sed -E 's/.*rps=([^ ]+) p50_ms=([^ ]+) p95_ms=([^ ]+) p99_ms=([^ ]+) errors=([^ ]+) socket_errors=([^ ]+) statuses=([^ ]*).*/\1 \2 \3 \4 \5 \6 \7/'
}

log "ceiling: trivial HTTP"
"$BUILD/trivial_http" "$TRIVIAL_PORT" "$CORES" &
TRIVIAL_PID=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$TRIVIAL_PORT/" >/dev/null 2>&1 && break; sleep 0.05; done
read -r rps p50 p95 p99 _ _ _ < <(BENCH_ALLOWED=200 run_wrk 64 bench/lua/trivial.lua "http://127.0.0.1:$TRIVIAL_PORT")
kill "$TRIVIAL_PID"
wait "$TRIVIAL_PID" 2>/dev/null || true
TRIVIAL_PID=
TRIVIAL_RPS=$rps
printf 'trivial_rps=%s\ntrivial_p50_ms=%s\ntrivial_p95_ms=%s\ntrivial_p99_ms=%s\ntrivial_conc=64\n' \
  "$rps" "$p50" "$p95" "$p99" >>"$CEIL"
echo "trivial HTTP: $rps req/s" >&2

# What an ID token's signature costs, for the token scenarios: OpenSSL's
# own RSA-2048 (RS256) and P-256 (ES256) signatures a second, one process
# per core (libcjose signs through OpenSSL).
if any_wanted token_exchange token_exchange_es256 code_flow; then
  log "ceiling: signatures (openssl speed rsa2048 ecdsap256, $CORES processes)"
  openssl speed -seconds 3 -multi "$CORES" rsa2048 ecdsap256 >"$WORK/openssl-speed.out" 2>/dev/null
  {
    awk '/^rsa 2048 bits/ {print "rs256_signs_per_s=" $6}' "$WORK/openssl-speed.out"
    awk '/ecdsa \(nistp256\)/ {print "es256_signs_per_s=" $7}' "$WORK/openssl-speed.out"
    echo "openssl_version=$(openssl version | cut -d' ' -f2)"
  } | tee -a "$CEIL" >&2
fi
# What client_credentials is set against: SHA-256 digests of a 64-byte
# input a second (a client secret's digest is one), one process per core.
if any_wanted client_credentials; then
  log "ceiling: SHA-256 digests (openssl speed -evp sha256, $CORES processes)"
  openssl speed -seconds 3 -multi "$CORES" -evp sha256 2>/dev/null |
    awk '/^sha256 / {v = $3; sub("k", "", v); print "sha256_digests_per_s=" int(v * 1000 / 64)}' |
    tee -a "$CEIL" >&2
fi

if has_backend postgres; then
  pg_start
  pg_ceilings
fi

# --- 3. authd on seeded databases ---------------------------------------------
PHC=$WORK/phc.txt
for _ in 1 2 3 4; do "$BUILD/argon2_ceiling" --phc "bench password 1"; done >"$PHC"
# Each logout uses a token once, so the seed must outlast the fastest
# logout this machine can serve: half the trivial ceiling of this run
# (logout has never come near that), and at least 30,000 a second. A run
# that still runs out answers 401s, which the report counts as errors.
# Every data set, on either backend, gets as many.
PER_SECOND=$(awk -v t="$TRIVIAL_RPS" 'BEGIN {n = int(t / 2); print (n > 30000 ? n : 30000)}')
SESSIONS=$((DURATION * PER_SECOND + 20000))

reset_peak() { echo 5 >"/proc/$AUTHD_PID/clear_refs" 2>/dev/null || true; }
peak_kib() { awk '/^VmHWM/ {print $2}' "/proc/$AUTHD_PID/status"; }

BACKEND=sqlite
record() { # scenario users conns "rps p50 p95 p99 errors socket statuses"
  local scenario=$1 users=$2 conns=$3 rps p50 p95 p99 errors sock statuses
  read -r rps p50 p95 p99 errors sock statuses <<<"$4"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$BACKEND" "$scenario" "$users" "$conns" \
    "$rps" "$p50" "$p95" "$p99" "$errors" "$sock" "$statuses" "$(peak_kib)" >>"$RESULTS"
  printf '%-8s %-20s %7s users %4s conns: %9s req/s  p50 %7s  p95 %7s  p99 %8s ms  errors %s  [%s]  peak RSS %s KiB\n' \
    "$BACKEND" "$scenario" "$users" "$conns" "$rps" "$p50" "$p95" "$p99" "$errors" "$statuses" "$(peak_kib)" >&2
}

scenario() { # name users conns allowed script [VAR=value...]
  local name=$1 users=$2 conns=$3 allowed=$4 script=$5
  shift 5
  wanted "$name" || return 0
  reset_peak
  local out
  local profiler=""
  if [ -n "${BENCH_PERF:-}" ]; then # a profile of the scenario's middle, its errors kept
    local seconds=$((DURATION > 3 ? DURATION - 2 : 1)) file="$BENCH_PERF.$BACKEND.$name"
    # shellcheck disable=SC2086 # perf's options, split on purpose
    (sleep 1; perf record -q ${BENCH_PERF_ARGS:--a -g} -o "$file.data" -- sleep "$seconds" \
      >"$file.log" 2>&1) &
    profiler=$!
  fi
  out=$(
    export BENCH_ALLOWED="$allowed" BENCH_USERS="$users" BENCH_THREADS="$THREADS"
    for kv in "$@"; do export "${kv?}"; done
    run_wrk "$conns" "$script" "http://127.0.0.1:$PORT"
  )
  if [ -n "$profiler" ]; then wait "$profiler" || echo "BENCH_PERF: perf failed, see its .log" >&2; fi
  record "$name" "$users" "$conns" "$out"
}

empty_outbox() { # dir
  if [ "$BACKEND" = postgres ]; then
    # The worker may be marking a claim's mails sent meanwhile, one row
    # after another: PostgreSQL can pick this DELETE as a deadlock's victim.
    for attempt in 1 2 3 4 5; do
      pg_psql "$AUTHD_DATABASE" -c "DELETE FROM outbox" && return 0
      echo "empty_outbox: attempt $attempt failed, again" >&2
      sleep 1
    done
    return 1
  else
    sqlite3 "$1/authd.db" ".timeout 10000" "DELETE FROM outbox" >/dev/null
  fi
}

unsent_mails() { # dir: mails queued and not sent yet (or dropped)
  if [ "$BACKEND" = postgres ]; then
    pg_psql "$AUTHD_DATABASE" -At -c "SELECT count(*) FROM outbox WHERE sent_at IS NULL"
  else
    sqlite3 "$1/authd.db" ".timeout 10000" "SELECT count(*) FROM outbox WHERE sent_at IS NULL"
  fi
}

# A /forgot, /signup or /signin/email scenario, and what the outbox worker
# did meanwhile: a request is answered before its mail goes, so a rate of
# answers means little unless the mail keeps up. Records the mails written
# to the mail directory during the scenario and those still unsent at its
# end (for /forgot's unknown addresses, none is written: each is dropped;
# /signin/email's unknown addresses get the sign-up mail, since sign-up is
# open here).
mail_scenario() { # name users dir conns script [VAR=value]
  local name=$1 users=$2 dir=$3 conns=$4 script=$5 before
  shift 5
  wanted "$name" || return 0
  empty_outbox "$dir"
  sleep 1  # mails claimed before the DELETE are still written: not this scenario's
  before=$(find "$dir/mail" -name '*.eml' | wc -l)
  scenario "$name" "$users" "$conns" 200 "$script" "$@"
  echo "mail_sent_${BACKEND}_${users}_${name}=$(($(find "$dir/mail" -name '*.eml' | wc -l) - before))" >>"$CEIL"
  echo "mail_unsent_${BACKEND}_${users}_${name}=$(unsent_mails "$dir")" >>"$CEIL"
}

split_tokens() { # dir: 2,000 tokens for GET /me, the rest for logout
  head -n 2000 "$1/tokens.txt" >"$1/me_tokens.txt"
  tail -n +2001 "$1/tokens.txt" >"$1/logout_tokens.txt"
}

start_authd() { # database-url dir key (the ceilings get startup_ms_KEY)
  local database=$1 dir=$2 key=$3 t0 keys=()
  AUTHD_DATABASE=$database
  # The provider (interface.md 17.2) is on in every run: a loopback http
  # issuer, and a secret key, which SQLite makes beside the database and
  # PostgreSQL is given. A write admin key registers the clients.
  if [ "$BACKEND" = postgres ]; then
    [ -f "$dir/secret.key" ] || (umask 077 && "$PY" -c 'import secrets; print(secrets.token_hex(32))' >"$dir/secret.key")
    keys=(--secret-key-file "$dir/secret.key")
  fi
  if [ ! -s "$dir/admin.key" ]; then
    (umask 077 && "$AUTHD_BIN" admin-key create --name bench --scope write --database "$database" \
      >"$dir/admin.key")
  fi
  rm -f "$dir/admin.port"
  log "starting authd ($BACKEND, $key)"
  t0=$(date +%s%N)
  "$AUTHD_BIN" serve --database "$database" --listen "127.0.0.1:$PORT" "${keys[@]}" \
    --oidc on --admin-port-file "$dir/admin.port" \
    --login-email-limit 1000000/1m --login-client-limit 1000000/1m \
    --forgot-client-limit 1000000/1m --reset-mail-limit-short 1000000/1m \
    --reset-mail-limit-long 1000000/1m --mail-dir "$dir/mail" \
    --signup open --signup-client-limit 1000000/1m --signup-mail-limit-short 1000000/1m \
    --signup-mail-limit-long 1000000/1m \
    --email-signin on --email-signin-client-limit 1000000/1m \
    --email-signin-mail-limit-short 1000000/1m --email-signin-mail-limit-long 1000000/1m \
    --admin-listen 127.0.0.1:0 --max-connections-per-client 100000 \
    --trusted-proxies 127.0.0.1 --public-url "http://127.0.0.1:$PORT" >"$dir/authd.log" 2>&1 &
  AUTHD_PID=$!
  until curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; do
    kill -0 "$AUTHD_PID" 2>/dev/null || { cat "$dir/authd.log" >&2; exit 1; }
    sleep 0.005
  done
  echo "startup_ms_$key=$((($(date +%s%N) - t0) / 1000000))" >>"$CEIL"
  tail -n1 "$CEIL" >&2
}

# Fair sharing: logins and GET /me, each as in login_ok and me and each
# trying to take the whole machine, at the same time. The report sets each
# against its rate alone (login_ok, me). Both run or neither.
mixed_scenarios() { # users
  local users=$1 mixed
  (
    export BENCH_ALLOWED=200 BENCH_USERS="$users" BENCH_THREADS="$THREADS" WRK_OUT=$WORK/mixed_login.out
    run_wrk 32 bench/lua/login.lua "http://127.0.0.1:$PORT" >"$WORK/mixed_login.fields"
  ) &
  mixed=$!
  SCENARIOS='' scenario mixed_me "$users" 64 200 bench/lua/me.lua
  wait "$mixed" || true
  record mixed_login "$users" 32 "$(cat "$WORK/mixed_login.fields")"
}

# GET /me while a login flood keeps the hashing pool saturated.
me_under_login_flood() { # users
  local users=$1 flood
  reset_peak
  BENCH_ALLOWED=200,503 BENCH_USERS=$users wrk -t1 -c64 -d"$((DURATION + 4))s" --timeout 10s \
    -s bench/lua/login.lua "http://127.0.0.1:$PORT" >"$WORK/flood.out" 2>&1 &
  flood=$!
  sleep 2
  scenario me_under_login_flood "$users" 4 200 bench/lua/me.lua
  wait "$flood" || true
  grep RESULT "$WORK/flood.out" | sed 's/^/  (the flood) /' >&2 || true
}

run_scenarios() { # users dir: every scenario with 1,000 users, GET /me and login with more
  local users=$1 dir=$2
  export BENCH_TOKENS=$dir/me_tokens.txt
  # Warm-up, not measured: GET /me is measured in its steady state, with
  # its sessions' pages in the read connection's cache (a fresh process
  # reads about 6,000 pages first;
  # docs/design/performance-choices.md#the-read-connections-page-cache).
  if any_wanted me mixed_me me_under_login_flood; then
    BENCH_ALLOWED=200 run_wrk 64 bench/lua/me.lua "http://127.0.0.1:$PORT" -d2s >/dev/null
  fi
  scenario me "$users" 64 200 bench/lua/me.lua
  scenario login_ok "$users" 32 200 bench/lua/login.lua
  [ "$users" = 1000 ] || return 0
  scenario logout "$users" 64 200 bench/lua/logout.lua BENCH_TOKENS="$dir/logout_tokens.txt"
  scenario login_wrong "$users" 32 401 bench/lua/login.lua BENCH_WRONG=1
  if any_wanted mixed_me mixed_login; then mixed_scenarios "$users"; fi
  if wanted me_under_login_flood; then me_under_login_flood "$users"; fi
  scenario flood_5000 "$users" 5000 200,503 bench/lua/login.lua
  # Each /forgot and /signup scenario starts with an empty outbox, so that none
  # pays for the others' queued mails (the worker delivers or drops them
  # during the scenario, as it would in service).
  mail_scenario forgot_unknown "$users" "$dir" 64 bench/lua/forgot.lua BENCH_UNKNOWN=1
  mail_scenario forgot_existing "$users" "$dir" 64 bench/lua/forgot.lua
  # Every request from one client address (behind a NAT or an untrusted
  # proxy): all count on that client's one key, set against forgot_unknown.
  mail_scenario forgot_one_address "$users" "$dir" 64 bench/lua/forgot.lua BENCH_UNKNOWN=1 \
    BENCH_ONE_ADDRESS=1
  # POST /signin/email takes /forgot's bodies and does /forgot's work per
  # request (interface.md 19.1): known and unknown addresses, as /forgot's.
  mail_scenario email_signin_unknown "$users" "$dir" 64 bench/lua/forgot.lua BENCH_UNKNOWN=1 \
    BENCH_PATH=/signin/email
  mail_scenario email_signin_existing "$users" "$dir" 64 bench/lua/forgot.lua \
    BENCH_PATH=/signin/email
  # /signup hashes the password whether or not the address has an account
  # (interface.md 11.4), so it is bound by the hashing pool: as many
  # connections as login_ok.
  mail_scenario signup_new "$users" "$dir" 32 bench/lua/signup.lua
  mail_scenario signup_existing "$users" "$dir" 32 bench/lua/signup.lua BENCH_EXISTING=1
  if any_wanted "${OIDC_SCENARIOS[@]}"; then oidc_scenarios "$users" "$dir"; fi
}

# The OpenID provider (interface.md 17), last, from an empty outbox (the
# mail scenarios' backlog would share the cores): clients registered through
# the admin API, then GET /oauth2/userinfo (against GET /me), POST
# /oauth2/token (against logout) and whole code flows. The codes and tokens
# come from the sessions of GET /me (me_tokens.txt), which no scenario ends.
oidc_scenarios() { # users dir
  local users=$1 dir=$2 admin base="http://127.0.0.1:$PORT"
  empty_outbox "$dir"
  sleep 1
  for _ in $(seq 200); do [ -s "$dir/admin.port" ] && break; sleep 0.05; done
  admin="http://127.0.0.1:$(cat "$dir/admin.port")"
  "$PY" bench/oidc_mint.py client "$admin" "$dir/admin.key" "$dir/client_rs256.env" --alg RS256
  "$PY" bench/oidc_mint.py client "$admin" "$dir/admin.key" "$dir/client_es256.env" --alg ES256
  export BENCH_SESSIONS=$dir/me_tokens.txt
  if wanted userinfo; then
    # 2,000 access tokens, as GET /me has 2,000 sessions; the scope of a
    # relying party that shows who signed in.
    "$PY" bench/oidc_mint.py tokens "$dir/client_rs256.env" "$base" "$dir/me_tokens.txt" 2000 \
      "$dir/access_tokens.txt" --scope "openid profile email"
    analyze_if_postgres
    # Warm-up, not measured, as for GET /me.
    BENCH_ALLOWED=200 BENCH_TOKENS=$dir/access_tokens.txt run_wrk 64 bench/lua/userinfo.lua "$base" -d2s >/dev/null
    scenario userinfo "$users" 64 200 bench/lua/userinfo.lua BENCH_TOKENS="$dir/access_tokens.txt"
  fi
  # Signing an ID token: RS256 (the default), ES256, and none (a scope
  # without openid: a plain OAuth 2 code, no ID token).
  token_scenario token_exchange "$dir" "$dir/client_rs256.env" openid
  token_scenario token_exchange_es256 "$dir" "$dir/client_es256.env" openid
  token_scenario token_exchange_plain "$dir" "$dir/client_rs256.env" profile
  scenario code_flow "$users" 64 200,302 bench/lua/code_flow.lua BENCH_CLIENT="$dir/client_rs256.env" \
    BENCH_SCOPE=openid
  lifecycle_scenarios "$users" "$dir" "$admin" "$base"
}

# The token lifecycle (interface.md 17.7, 17.10, 17.11): refresh against
# logout (a rotation is one small write), introspection of an opaque
# access token against GET /me (a read), client_credentials against the
# SHA-256 ceiling. Refresh tokens without openid: no ID token is signed.
lifecycle_scenarios() { # users dir admin base
  local users=$1 dir=$2 admin=$3 base=$4
  if wanted refresh; then
    "$PY" bench/oidc_mint.py client "$admin" "$dir/admin.key" "$dir/client_refresh.env" \
      --grants authorization_code,refresh_token --scopes openid,profile,offline_access
    "$PY" bench/oidc_mint.py refresh "$dir/client_refresh.env" "$base" "$dir/me_tokens.txt" 2000 \
      "$dir/refresh_tokens.txt" --scope "profile offline_access"
    analyze_if_postgres
    scenario refresh "$users" 64 200 bench/lua/refresh.lua BENCH_CLIENT="$dir/client_refresh.env" \
      BENCH_REFRESH="$dir/refresh_tokens.txt"
  fi
  if wanted introspect; then
    "$PY" bench/oidc_mint.py client "$admin" "$dir/admin.key" "$dir/client_api.env" --introspection
    [ -s "$dir/access_tokens.txt" ] ||
      "$PY" bench/oidc_mint.py tokens "$dir/client_rs256.env" "$base" "$dir/me_tokens.txt" 2000 \
        "$dir/access_tokens.txt" --scope "openid profile email"
    analyze_if_postgres
    BENCH_ALLOWED=200 BENCH_CLIENT=$dir/client_api.env BENCH_TOKENS=$dir/access_tokens.txt \
      run_wrk 64 bench/lua/introspect.lua "$base" -d2s >/dev/null
    scenario introspect "$users" 64 200 bench/lua/introspect.lua BENCH_CLIENT="$dir/client_api.env" \
      BENCH_TOKENS="$dir/access_tokens.txt"
  fi
  if wanted client_credentials; then
    "$PY" bench/oidc_mint.py client "$admin" "$dir/admin.key" "$dir/client_machine.env" \
      --grants client_credentials --scopes profile
    scenario client_credentials "$users" 64 200 bench/lua/client_credentials.lua \
      BENCH_CLIENT="$dir/client_machine.env"
  fi
}

# The provider's tables were empty when the data set was analyzed: on
# PostgreSQL, their statistics after minting, as the seed's VACUUM ANALYZE
# gives the others' (autovacuum would within a minute in service; without
# them the planner may join a token to its user by scanning users).
analyze_if_postgres() {
  if [ "$BACKEND" = postgres ]; then pg_psql "$AUTHD_DATABASE" -c "ANALYZE"; fi
}

# POST /oauth2/token on codes minted just before: a code lives 60 s
# (interface.md 17.6), so wrk mints them (mint_codes.lua) for one and a
# half times the scenario's duration (at most 55 s less the duration) at
# the rate /oauth2/authorize answers, which does less than the token
# endpoint (no client authentication, no token, no signature): enough for
# the scenario.
# A scenario that runs out answers 400s, which count as errors.
token_scenario() { # name dir client-file scope
  local name=$1 dir=$2 client=$3 scope=$4 seconds minted
  wanted "$name" || return 0
  seconds=$((3 * DURATION / 2))
  [ "$seconds" -le $((55 - DURATION)) ] || seconds=$((55 - DURATION))
  [ "$seconds" -ge 2 ] || seconds=2
  rm -f "$dir/codes.txt"*
  log "minting codes for $name: GET /oauth2/authorize for $seconds s"
  BENCH_ALLOWED=302 BENCH_CLIENT=$client BENCH_SCOPE=$scope BENCH_CODES_OUT=$dir/codes.txt \
    wrk -t"$THREADS" -c64 -d"${seconds}s" --timeout 10s -s bench/lua/mint_codes.lua \
    "http://127.0.0.1:$PORT" >"$WORK/mint.out" 2>&1 || true
  cat "$dir/codes.txt".* >"$dir/codes.txt"
  minted=$(wc -l <"$dir/codes.txt")
  echo "codes_minted_${BACKEND}_${name}=$minted" >>"$CEIL"
  echo "minted $minted codes ($(grep -o 'rps=[^ ]*' "$WORK/mint.out" || echo '?') a second)" >&2
  analyze_if_postgres
  scenario "$name" 1000 64 200 bench/lua/token_exchange.lua BENCH_CLIENT="$client" \
    BENCH_CODES="$dir/codes.txt"
}

if has_backend sqlite; then
  BACKEND=sqlite
  for USERS in 1000 1000000; do
    if [ "$USERS" = 1000000 ] && [ "${BENCH_SKIP_LARGE:-0}" = 1 ]; then continue; fi
    if [ "$USERS" = 1000000 ] && ! any_wanted me login_ok; then continue; fi
    DIR=$WORK/db-$USERS
    rm -rf "$DIR"
    mkdir -p "$DIR/mail"
    DB=$DIR/authd.db
    log "SQLite: seeding $USERS users and $SESSIONS sessions"
    "$AUTHD_BIN" migrate --database "sqlite:$DB" 2>/dev/null
    t0=$(date +%s.%N)
    "$PY" bench/seed.py "$DB" "$USERS" "$PHC" "$SESSIONS" "$DIR/tokens.txt"
    echo "seed_s_$USERS=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $t0}")" >>"$CEIL"
    split_tokens "$DIR"
    sync
    start_authd "sqlite:$DB" "$DIR" "$USERS"
    run_scenarios "$USERS" "$DIR"
    stop_authd
  done
fi
if has_backend postgres; then
  pg_run_backend
  pg_stop
fi

# --- 4. the table, the docs, the plots ----------------------------------------
log "report"
echo "sessions=$SESSIONS" >>"$CEIL"
echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$CEIL"
"$PY" bench/report.py "$RESULTS" "$CEIL" docs/design/performance.md docs/design/performance.png "$WORK" \
  docs/design/benchmarks.md docs/design/benchmarks.png
if [ -n "$SCENARIOS" ]; then
  echo "the OpenID provider's section of docs/design/performance.md and docs/design/benchmarks.md written (if this run had its scenarios)" >&2
else
  echo "docs/design/performance.md, docs/design/performance.png, docs/design/benchmarks.md and docs/design/benchmarks.png written" >&2
fi
