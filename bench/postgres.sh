# shellcheck shell=bash
# The PostgreSQL part of bench/run.sh, which sources this file (it only
# defines functions; they use run.sh's variables and functions: WORK, CEIL,
# DURATION, PY, AUTHD_BIN, PHC, SESSIONS, BACKEND, log, split_tokens,
# start_authd, run_scenarios, stop_authd, empty_outbox, wanted, any_wanted).
#
# The cluster is a throw-away PostgreSQL 15 (Debian's postgresql-15) made as
# scripts/with-postgres.sh makes its own: initdb in a temporary directory (as
# the postgres user when run as root: PostgreSQL refuses root), trust
# authentication, listening on 127.0.0.1 on a free port, max_connections=300
# and otherwise PostgreSQL's defaults. No tuning, on purpose: authd is
# compared against a default cluster on the same machine.
#
#   pg_start        initdb and start the cluster (PG_URL is its base URL)
#   pg_ceilings     PostgreSQL's own ceilings with pgbench, before authd runs:
#                   select-only (pg_select_ceiling) and single-row INSERTs,
#                   one commit each (pg_write_ceiling), into the ceilings file
#   pg_run_backend  seed a database per data set, run authd's scenarios on it,
#                   then logout again on the cluster restarted cold
#   pg_stop         stop and delete the cluster (run.sh's EXIT trap calls it)

PG_BIN=/usr/lib/postgresql/15/bin
PG_DIR=
PG_PORT=
PG_URL=
PG_AS_OWNER=()

pg_ctl_() { # pg_ctl's verbs on the bench cluster
  "${PG_AS_OWNER[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=300" "$@"
}
pg_psql() { PGOPTIONS="-c client_min_messages=warning" "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
pg_bench() { "$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -U postgres "$@"; }

pg_start() {
  [ -x "$PG_BIN/pgbench" ] || { echo "$PG_BIN/pgbench not found: install postgresql-15 (bench/packages.txt)" >&2; exit 1; }
  PG_DIR=$(mktemp -d /tmp/authd-bench-postgres.XXXXXX)
  if [ "$(id -u)" = 0 ]; then
    chown postgres:postgres "$PG_DIR"
    PG_AS_OWNER=(runuser -u postgres --)
  fi
  # A free port: bound by the kernel's choice, then released for PostgreSQL.
  PG_PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  PG_URL=postgresql://postgres@127.0.0.1:$PG_PORT
  log "PostgreSQL: a default cluster in $PG_DIR on 127.0.0.1:$PG_PORT"
  "${PG_AS_OWNER[@]}" "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres -A trust -E UTF8 \
    --locale=C.UTF-8 --no-sync >"$PG_DIR/initdb.log" 2>&1 || { cat "$PG_DIR/initdb.log" >&2; exit 1; }
  pg_ctl_ start >/dev/null || { cat "$PG_DIR/server.log" >&2; exit 1; }
  {
    echo "pg_version=$("$PG_BIN/postgres" --version | sed 's/^postgres (PostgreSQL) //')"
    echo "pg_fs=$(df --output=fstype "$PG_DIR" | tail -n1 | tr -d ' ')"
    local setting
    for setting in shared_buffers synchronous_commit fsync wal_level max_wal_size; do
      echo "pg_$setting=$(pg_psql -At "$PG_URL/postgres" -c "SHOW $setting")"
    done
  } >>"$CEIL"
}

pg_stop() {
  [ -n "$PG_DIR" ] || return 0
  pg_ctl_ stop -m immediate >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
  PG_DIR=
}

# The tps of a pgbench output ("tps = N (without initial connection time)").
pg_tps() { sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$1"; }
# "p50 p95 p99" in ms of the per-transaction logs PREFIX.* (latency in us: field 3).
pg_log_percentiles() {
  cat "$1".* | awk '{print $3}' | sort -n | awk '
    { v[NR] = $1 }
    function at(p,  i) { i = int(NR * p / 100); if (i < NR * p / 100) i++; if (i < 1) i = 1; return v[i] / 1000 }
    END { if (NR) printf "%.3f %.3f %.3f\n", at(50), at(95), at(99); else print "0 0 0" }'
}

pg_ceilings() {
  local db=pgbench_ceiling url=$PG_URL/pgbench_ceiling out c tps best t0
  pg_psql "$PG_URL/postgres" -c "CREATE DATABASE $db"
  log "ceiling: PostgreSQL reads (pgbench -i -s 10, then pgbench -S -M prepared at 4 and 16 clients)"
  t0=$(date +%s.%N)
  pg_bench -i -s 10 -q "$db" >"$WORK/pgbench-init.out" 2>&1 || { cat "$WORK/pgbench-init.out" >&2; exit 1; }
  echo "pg_init_s=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $t0}")" >>"$CEIL"
  best=0
  for c in 4 16; do
    out=$WORK/pgbench-select-$c.out
    pg_bench -S -M prepared -c "$c" -j 2 -T "$DURATION" "$db" >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
    tps=$(pg_tps "$out")
    echo "pg_select_${c}_tps=$tps" >>"$CEIL"
    echo "pg_select_${c}_latency_avg_ms=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' "$out")" >>"$CEIL"
    echo "select-only, $c clients: $tps tps" >&2
    best=$(awk -v a="$best" -v b="$tps" 'BEGIN {print (b > a ? b : a)}')
  done
  echo "pg_select_ceiling=$best" >>"$CEIL"

  # One single-row INSERT a transaction (autocommit: INSERT and COMMIT, a WAL
  # flush each), a row about the size of a session's.
  log "ceiling: PostgreSQL writes (single-row INSERT + COMMIT, pgbench -M prepared at 8 and 32 clients)"
  pg_psql "$url" -c "CREATE TABLE bench_write (id bigserial PRIMARY KEY, at bigint NOT NULL, v text NOT NULL)"
  cat >"$WORK/pg_write.sql" <<'SQL'
\set at random(1, 9000000000000)
INSERT INTO bench_write (at, v) VALUES (:at, 'bench write ceiling: a forty-byte value.');
SQL
  local best_p99=0 p50 p95 p99
  best=0
  for c in 8 32; do
    out=$WORK/pgbench-write-$c.out
    rm -f "$WORK/pgwrite-$c".*
    pg_bench -n -f "$WORK/pg_write.sql" -M prepared -c "$c" -j 2 -T "$DURATION" \
      --log --log-prefix="$WORK/pgwrite-$c" "$db" >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
    tps=$(pg_tps "$out")
    read -r p50 p95 p99 < <(pg_log_percentiles "$WORK/pgwrite-$c")
    rm -f "$WORK/pgwrite-$c".*
    printf 'pg_write_%s_tps=%s\npg_write_%s_p50_ms=%s\npg_write_%s_p95_ms=%s\npg_write_%s_p99_ms=%s\n' \
      "$c" "$tps" "$c" "$p50" "$c" "$p95" "$c" "$p99" >>"$CEIL"
    echo "INSERT + COMMIT, $c clients: $tps tps, p50 $p50 ms, p99 $p99 ms" >&2
    if awk -v a="$best" -v b="$tps" 'BEGIN {exit !(b > a)}'; then best=$tps best_p99=$p99; fi
  done
  printf 'pg_write_ceiling=%s\npg_write_ceiling_p99_ms=%s\n' "$best" "$best_p99" >>"$CEIL"
  # Leave the cluster as a default one again: no pgbench data, nothing to checkpoint.
  pg_psql "$PG_URL/postgres" -c "DROP DATABASE $db" -c "CHECKPOINT"
}

pg_seed() { # users dir: a database authd_bench_USERS, migrated and loaded by COPY
  local users=$1 dir=$2 db=authd_bench_$1 url=$PG_URL/authd_bench_$1 t0
  pg_psql "$PG_URL/postgres" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
  "$AUTHD_BIN" migrate --database "$url" >"$dir/migrate.log" 2>&1 || { cat "$dir/migrate.log" >&2; exit 1; }
  t0=$(date +%s.%N)
  "$PY" bench/seed.py --postgres-csv users "$users" "$PHC" |
    pg_psql "$url" -c "COPY users (id, email, password_hash, display_name, created_at, updated_at) FROM STDIN (FORMAT csv)"
  "$PY" bench/seed.py --postgres-csv sessions "$users" "$SESSIONS" "$dir/tokens.txt" |
    pg_psql "$url" -c "COPY sessions (token_digest, user_id, created_at, expires_at) FROM STDIN (FORMAT csv)"
  pg_psql "$url" -c "VACUUM ANALYZE" -c "CHECKPOINT"
  echo "seed_s_pg_$users=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $t0}")" >>"$CEIL"
  tail -n1 "$CEIL" >&2
}

# GET /me's own statement (store/user_columns.hpp, AUTHD_SESSION_USER_SQL)
# under pgbench, on the seeded database: a ceiling for the work PostgreSQL
# does per GET /me, which costs more than select-only's one-table lookup (two
# index descents on a 32-byte key and a join). Each transaction picks one of
# 2,000 sessions by number from a side table, in the same statement; the
# table is dropped afterwards.
pg_statement_ceiling() { # url
  local url=$1 c out tps best=0
  log "ceiling: GET /me's statement (pgbench -M prepared at 4 and 16 clients)"
  pg_psql "$url" -c "CREATE TABLE bench_me_keys AS SELECT row_number() OVER () AS n, token_digest FROM sessions LIMIT 2000" \
    -c "ALTER TABLE bench_me_keys ADD PRIMARY KEY (n)" -c "VACUUM ANALYZE bench_me_keys"
  cat >"$WORK/pg_me.sql" <<'SQL'
\set n random(1, 2000)
SELECT id, email, password_hash, phone, photo_url, display_name, email_verified_at, phone_verified_at, disabled, created_at, updated_at, last_login_at, expires_at FROM users JOIN (SELECT user_id, expires_at FROM sessions WHERE token_digest = (SELECT token_digest FROM bench_me_keys WHERE n = :n) AND revoked_at IS NULL) AS s ON users.id = s.user_id;
SQL
  for c in 4 16; do
    out=$WORK/pgbench-me-$c.out
    pg_bench -n -f "$WORK/pg_me.sql" -M prepared -c "$c" -j 2 -T "$DURATION" "${url##*/}" >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
    tps=$(pg_tps "$out")
    echo "pg_me_statement_${c}_tps=$tps" >>"$CEIL"
    echo "GET /me's statement, $c clients: $tps tps" >&2
    best=$(awk -v a="$best" -v b="$tps" 'BEGIN {print (b > a ? b : a)}')
  done
  echo "pg_me_statement_ceiling=$best" >>"$CEIL"
  pg_psql "$url" -c "DROP TABLE bench_me_keys" -c "CHECKPOINT"
}

pg_run_backend() {
  local users dir
  # shellcheck disable=SC2034  # run.sh's record() writes it into each result
  BACKEND=postgres
  for users in 1000 1000000; do
    if [ "$users" = 1000000 ] && [ "${BENCH_PG_LARGE:-0}" != 1 ]; then continue; fi
    if [ "$users" = 1000000 ] && ! any_wanted me login_ok; then continue; fi
    dir=$WORK/pg-$users
    rm -rf "$dir"
    mkdir -p "$dir/mail"
    log "PostgreSQL: seeding $users users and $SESSIONS sessions"
    pg_seed "$users" "$dir"
    [ "$users" = 1000 ] && pg_statement_ceiling "$PG_URL/authd_bench_$users"
    split_tokens "$dir"
    start_authd "$PG_URL/authd_bench_$users" "$dir" "pg_$users"
    run_scenarios "$users" "$dir"
    stop_authd
    if [ "$users" = 1000 ] && wanted logout_cold; then
      # From an empty outbox, so that the cold logouts do not share the
      # cores with the delivery of a backlog the last scenario left.
      empty_outbox "$dir"
      pg_make_cold "$dir"
      start_authd "$PG_URL/authd_bench_$users" "$dir" "pg_${users}_cold"
      scenario logout_cold "$users" 64 200 bench/lua/logout.lua BENCH_TOKENS="$dir/cold_tokens.txt"
      stop_authd
    fi
  done
}

# A cold cluster (logout's p99 is to hold on a cold cluster too): the
# cluster restarted, so that its shared buffers are empty, and the kernel's
# page cache dropped when this process may (root), so that the first
# logouts read their sessions' pages from the disk. Records which. The cold
# logouts use the second half of the logout tokens, which the warm logout
# scenario (at most half the seed's rate) does not reach.
pg_make_cold() { # dir
  local n
  n=$(wc -l <"$1/logout_tokens.txt")
  tail -n +$((n / 2 + 1)) "$1/logout_tokens.txt" >"$1/cold_tokens.txt"
  log "PostgreSQL: restarting the cluster cold"
  pg_ctl_ restart -m fast >/dev/null || { cat "$PG_DIR/server.log" >&2; exit 1; }
  sync
  if echo 3 2>/dev/null >/proc/sys/vm/drop_caches; then
    echo "pg_cold_page_cache=dropped" >>"$CEIL"
  else
    echo "pg_cold_page_cache=kept" >>"$CEIL"
  fi
  tail -n1 "$CEIL" >&2
}
