#!/usr/bin/env bash
# authd behind PgBouncer in transaction pooling mode against authd on the
# same PostgreSQL directly (interface.md 20.3): what --database-pooler
# transaction costs (unnamed statements, parsed and planned for each run;
# the limits set in each write transaction; one more hop).
#
#   BENCH_POOLER=pgbouncer bash bench/run.sh     (what this file is run by)
#   bash scripts/with-pgbouncer.sh bash bench/pooler.sh   (the same, by hand)
#
# Same machine, same cluster (scripts/with-postgres.sh's: PostgreSQL's
# defaults), one fresh database of 1,000 users for each side, the scenarios
# GET /me, login, logout and /forgot (unknown addresses) with bench/lua's
# scripts, BENCH_DURATION seconds each (default 10), on three sides: direct,
# unnamed (the setting without PgBouncer) and pgbouncer. Prints one line per
# scenario and side, then the ratios; writes them to BENCH_POOLER_OUT when
# set. AUTHD_BIN: the authd to run (default build/authd).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
[ -n "${AUTHD_TEST_POSTGRES_SERVER:-}" ] ||
  { echo "bench/pooler.sh: run it under scripts/with-pgbouncer.sh" >&2; exit 2; }
AUTHD_BIN=${AUTHD_BIN:-$ROOT/build/authd}
DURATION=${BENCH_DURATION:-10}
PORT=${BENCH_PORT:-18580}
USERS=1000
SESSIONS=$((DURATION * 30000 + 20000))  # logout uses each token once
WORK=$(mktemp -d /tmp/authd-bench-pooler.XXXXXX)
OUT=${BENCH_POOLER_OUT:-$WORK/results.tsv}
export BENCH_LUA=$ROOT/bench/lua BENCH_THREADS=2 BENCH_USERS=$USERS
AUTHD_PID=
cleanup() {
  [ -n "$AUTHD_PID" ] && kill "$AUTHD_PID" 2>/dev/null && wait "$AUTHD_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
psql_() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

(umask 077 && /usr/bin/python3 -c 'import secrets; print(secrets.token_hex(32))' >"$WORK/secret.key")
# authd's own argon2id parameters, so that a login re-hashes nothing.
/usr/bin/python3 -c 'import argon2
h = argon2.PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
print(h.hash("bench password 1"))' >"$WORK/phc.txt"

seed() { # side: a database bench_SIDE on the cluster, 1,000 users, SESSIONS sessions
  local url=$AUTHD_TEST_POSTGRES_SERVER/bench_$1
  psql_ -d "$AUTHD_TEST_POSTGRES_SERVER/postgres" -c "CREATE DATABASE bench_$1"
  "$AUTHD_BIN" migrate --database "$url" --database-pooler none >/dev/null 2>&1
  /usr/bin/python3 bench/seed.py --postgres-csv users "$USERS" "$WORK/phc.txt" |
    psql_ -d "$url" -c "COPY users (id, email, password_hash, display_name, created_at, updated_at) FROM STDIN (FORMAT csv)"
  /usr/bin/python3 bench/seed.py --postgres-csv sessions "$USERS" "$SESSIONS" "$WORK/tokens_$1.txt" |
    psql_ -d "$url" -c "COPY sessions (token_digest, user_id, created_at, expires_at) FROM STDIN (FORMAT csv)"
  psql_ -d "$url" -c "VACUUM ANALYZE" -c "CHECKPOINT"
  head -n 2000 "$WORK/tokens_$1.txt" >"$WORK/me_$1.txt"
  tail -n +2001 "$WORK/tokens_$1.txt" >"$WORK/logout_$1.txt"
}

start_authd() { # database-url pooler
  "$AUTHD_BIN" serve --database "$1" --database-pooler "$2" --listen "127.0.0.1:$PORT" \
    --secret-key-file "$WORK/secret.key" --mail-dir "$WORK/mail" --trusted-proxies 127.0.0.1 \
    --login-email-limit 1000000/1m --login-client-limit 1000000/1m \
    --forgot-client-limit 1000000/1m --reset-mail-limit-short 1000000/1m \
    --reset-mail-limit-long 1000000/1m --max-connections-per-client 100000 \
    --public-url "http://127.0.0.1:$PORT" >"$WORK/authd.log" 2>&1 &
  AUTHD_PID=$!
  until curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; do
    kill -0 "$AUTHD_PID" 2>/dev/null || { cat "$WORK/authd.log" >&2; exit 1; }
    sleep 0.02
  done
}

run() { # side scenario conns script [VAR=value...]: one wrk run, recorded
  local side=$1 name=$2 conns=$3 script=$4 line
  shift 4
  line=$(env BENCH_ALLOWED=200 "$@" wrk -t2 -c"$conns" -d"${DURATION}s" --timeout 10s -s "$script" \
    "http://127.0.0.1:$PORT" 2>&1 | grep '^RESULT' || echo 'RESULT rps=0 p50_ms=0 p99_ms=0 errors=1')
  local rps p50 p99 errors
  rps=$(sed -E 's/.* rps=([^ ]+).*/\1/' <<<"$line")
  p50=$(sed -E 's/.* p50_ms=([^ ]+).*/\1/' <<<"$line")
  p99=$(sed -E 's/.* p99_ms=([^ ]+).*/\1/' <<<"$line")
  errors=$(sed -E 's/.* errors=([^ ]+).*/\1/' <<<"$line")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$side" "$name" "$rps" "$p50" "$p99" "$errors" >>"$OUT"
  printf '%-9s %-15s %9s req/s  p50 %7s ms  p99 %8s ms  errors %s\n' "$side" "$name" "$rps" "$p50" \
    "$p99" "$errors" >&2
}

: >"$OUT"
# direct: --database-pooler none on the cluster; unnamed: the pooler's
# setting on the cluster directly (what unnamed statements alone cost);
# pgbouncer: the setting, through PgBouncer (the hop and PgBouncer's own CPU).
for side in direct unnamed pgbouncer; do
  seed "$side"
  case $side in
    direct) start_authd "$AUTHD_TEST_POSTGRES_SERVER/bench_$side" none ;;
    unnamed) start_authd "$AUTHD_TEST_POSTGRES_SERVER/bench_$side" transaction ;;
    pgbouncer) start_authd "$AUTHD_TEST_POSTGRES/bench_$side" transaction ;;
  esac
  # Warm-up, not measured, as bench/run.sh does for GET /me.
  BENCH_ALLOWED=200 BENCH_TOKENS=$WORK/me_$side.txt wrk -t2 -c64 -d2s -s bench/lua/me.lua \
    "http://127.0.0.1:$PORT" >/dev/null 2>&1 || true
  run "$side" me 64 bench/lua/me.lua BENCH_TOKENS="$WORK/me_$side.txt"
  run "$side" login_ok 32 bench/lua/login.lua
  run "$side" logout 64 bench/lua/logout.lua BENCH_TOKENS="$WORK/logout_$side.txt"
  run "$side" forgot_unknown 64 bench/lua/forgot.lua BENCH_UNKNOWN=1
  kill "$AUTHD_PID"
  wait "$AUTHD_PID" 2>/dev/null || true
  AUTHD_PID=
done

echo "requests a second against direct:   unnamed  pgbouncer" >&2
awk -F'\t' '{r[$1 "," $2] = $3; if ($1 == "direct") order[++n] = $2}
  END {for (i = 1; i <= n; i++) {s = order[i]; d = r["direct," s]; if (d > 0)
    printf "  %-33s %7.2f  %9.2f\n", s, r["unnamed," s] / d, r["pgbouncer," s] / d}}' "$OUT" >&2
