#!/usr/bin/env bash
# Runs a command against PgBouncer (Debian's 1.18) in transaction pooling
# mode, in front of the throw-away PostgreSQL 15 cluster of
# scripts/with-postgres.sh (interface.md 20.3). PgBouncer listens on
# 127.0.0.1 on a free port, every database name going to that cluster; it
# is stopped and its folder deleted when the command ends. PgBouncer
# refuses to run as root, so as root it runs as the postgres user.
#
# The command sees what with-postgres.sh gives, except:
#   AUTHD_TEST_POSTGRES     postgresql://postgres@127.0.0.1:PORT, PgBouncer's
#   AUTHD_DATABASE_POOLER   transaction: every authd the command starts (the
#                           tests' servers and commands) reads it as its
#                           --database-pooler
#   AUTHD_TEST_POSTGRES_SERVER  the cluster's own URL, behind PgBouncer
# AUTHD_TEST_POSTGRES_CONTROL still acts on the cluster itself.
#
# Usage: scripts/with-pgbouncer.sh COMMAND [ARGS...]
set -euo pipefail

if [ "${1:-}" != --inside-with-postgres ]; then
  exec bash "$(dirname "$0")/with-postgres.sh" bash "$0" --inside-with-postgres "$@"
fi
shift

command -v pgbouncer >/dev/null ||
  { echo "with-pgbouncer: pgbouncer not found; run scripts/install-deps.sh" >&2; exit 1; }
server_port=${AUTHD_TEST_POSTGRES##*:}

directory=$(mktemp -d /tmp/authd-pgbouncer.XXXXXX)
run_as_owner=()
if [ "$(id -u)" = 0 ]; then
  chown postgres:postgres "$directory"
  run_as_owner=(runuser -u postgres --)
fi
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# Trust, as the cluster behind it: loopback only, one run. Each test
# database is a pool of its own: idle server connections close after 2 s,
# and the user's 200 at most (PgBouncer closes another pool's idle ones to
# make room) stay under the cluster's 300 connections with room for the
# tests' own psql. No ignore_startup_parameters: a client sending `options`
# is refused, as in production.
echo '"postgres" ""' >"$directory/userlist.txt"
cat >"$directory/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=$server_port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $directory/userlist.txt
pool_mode = transaction
max_client_conn = 4000
default_pool_size = 20
max_db_connections = 40
max_user_connections = 200
server_idle_timeout = 2
server_reset_query =
logfile = $directory/pgbouncer.log
pidfile = $directory/pgbouncer.pid
INI

cleanup() {
  [ -f "$directory/pgbouncer.pid" ] && kill "$(cat "$directory/pgbouncer.pid")" 2>/dev/null || true
  rm -rf "$directory"
}
trap cleanup EXIT

"${run_as_owner[@]}" pgbouncer -d -q "$directory/pgbouncer.ini" ||
  { cat "$directory/pgbouncer.log" >&2; exit 1; }
for _ in $(seq 100); do
  psql -X -q -At -d "postgresql://postgres@127.0.0.1:$port/postgres" -c 'SELECT 1' >/dev/null 2>&1 && break
  sleep 0.1
done
echo "with-pgbouncer: PgBouncer $(pgbouncer --version | awk 'NR == 1 {print $2}') (pool_mode=transaction) on 127.0.0.1:$port" >&2

export AUTHD_TEST_POSTGRES_SERVER="$AUTHD_TEST_POSTGRES"
export AUTHD_TEST_POSTGRES="postgresql://postgres@127.0.0.1:$port"
export AUTHD_DATABASE_POOLER=transaction
set +e
"$@"
status=$?
exit "$status"
