#!/usr/bin/env bash
# Runs a command next to a throw-away PostgreSQL 15 cluster (Debian's
# postgresql-15): initdb in a temporary directory, listening on 127.0.0.1 on
# a free port, stopped and deleted when the command ends. PostgreSQL refuses
# to run as root, so as root the cluster runs as the postgres user.
#
# The command sees:
#   AUTHD_TEST_POSTGRES          postgresql://postgres@127.0.0.1:PORT (trust
#                                authentication, local only); tests create
#                                their own databases on it
#   AUTHD_TEST_POSTGRES_CONTROL  a script taking pg_ctl's verbs: stop, start,
#                                restart (with pg_ctl's -m MODE), and freeze /
#                                thaw (the server stops answering, then
#                                resumes), so that tests can take the database
#                                away and bring it back; and standby NAME (a
#                                hot standby streaming from it, made by
#                                pg_basebackup -R; prints its port), promote
#                                NAME, standby-stop NAME, for failovers
#
# Usage: scripts/with-postgres.sh COMMAND [ARGS...]
set -euo pipefail

PG_BIN=/usr/lib/postgresql/15/bin
[ -x "$PG_BIN/initdb" ] || { echo "with-postgres: $PG_BIN not found; run scripts/install-deps.sh" >&2; exit 1; }

directory=$(mktemp -d /tmp/authd-postgres.XXXXXX)
run_as_owner=()
if [ "$(id -u)" = 0 ]; then
  chown postgres:postgres "$directory"
  run_as_owner=(runuser -u postgres --)
fi

# A free port: bound by the kernel's choice, then released for PostgreSQL.
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

cat >"$directory/control" <<CONTROL
#!/usr/bin/env bash
# pg_ctl for the cluster of scripts/with-postgres.sh: control stop|start|restart [-m MODE];
# also freeze|thaw: SIGSTOP/SIGCONT the server and its backends (a hung database).
case "\${1:-}" in
  freeze|thaw)
    signal=\$([ "\$1" = freeze ] && echo STOP || echo CONT)
    postmaster=\$(head -1 "$directory/data/postmaster.pid")
    kill -\$signal "\$postmaster" && pkill -\$signal -P "\$postmaster"
    exit 0 ;;
  standby)
    standby="$directory/standby-\$2"
    standby_port=\$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    timeout 60 ${run_as_owner[*]} $PG_BIN/pg_basebackup -h 127.0.0.1 -p $port -U postgres -D "\$standby" -R -X stream -c fast >/dev/null
    ${run_as_owner[*]} $PG_BIN/pg_ctl -D "\$standby" -l "\$standby.log" -w -t 60 \\
      -o "-p \$standby_port -k $directory -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null
    echo "\$standby_port"
    exit 0 ;;
  promote)
    exec ${run_as_owner[*]} $PG_BIN/pg_ctl -D "$directory/standby-\$2" -w -t 60 promote ;;
  standby-stop)
    ${run_as_owner[*]} $PG_BIN/pg_ctl -D "$directory/standby-\$2" -w -t 60 -m immediate stop >/dev/null
    rm -rf "$directory/standby-\$2" "$directory/standby-\$2.log"
    exit 0 ;;
esac
exec ${run_as_owner[*]} $PG_BIN/pg_ctl -D "$directory/data" -l "$directory/server.log" -w -t 60 \\
  -o "-p $port -k $directory -c listen_addresses=127.0.0.1 -c max_connections=300" "\$@"
CONTROL
chmod 755 "$directory/control"

cleanup() {
  "$directory/control" thaw >/dev/null 2>&1 || true  # a test may have left it frozen
  for standby in "$directory"/standby-*/; do  # and a standby running
    [ -d "$standby" ] && { "${run_as_owner[@]}" "$PG_BIN/pg_ctl" -D "$standby" -m immediate stop >/dev/null 2>&1 || true; }
  done
  "$directory/control" stop -m immediate >/dev/null 2>&1 || true
  rm -rf "$directory"
}
trap cleanup EXIT

# No password: the cluster listens on 127.0.0.1 only and lives for one run.
"${run_as_owner[@]}" "$PG_BIN/initdb" -D "$directory/data" -U postgres -A trust -E UTF8 \
  --locale=C.UTF-8 --no-sync >"$directory/initdb.log" 2>&1 ||
  { cat "$directory/initdb.log" >&2; exit 1; }
"$directory/control" start >/dev/null || { cat "$directory/server.log" >&2; exit 1; }
echo "with-postgres: PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port" >&2

export AUTHD_TEST_POSTGRES="postgresql://postgres@127.0.0.1:$port"
export AUTHD_TEST_POSTGRES_CONTROL="$directory/control"
set +e
"$@"
status=$?
exit "$status"
