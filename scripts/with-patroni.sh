#!/usr/bin/env bash
# Runs a command next to a throw-away Patroni cluster (interface.md 20.2):
# one etcd (Debian's etcd-server) and three PostgreSQL 15 nodes, each under
# its own Patroni (Debian's patroni), all on free loopback ports in a
# temporary directory, stopped and deleted when the command ends. As root,
# everything runs as the postgres user (PostgreSQL refuses root).
#
# Replication is synchronous (Patroni's synchronous_mode and
# synchronous_mode_strict, synchronous_commit=on): a commit is acknowledged
# once a standby has it, and only that standby may be promoted. ASYNC=1
# makes it asynchronous, to show what that can lose. A failover takes
# seconds: ttl 10 s, loop_wait 1 s, retry_timeout 4 s, and
# primary_start_timeout 0, so that a primary whose postmaster dies is failed
# over at once instead of restarted in place. The settings and why:
# docs/design/failover.md.
#
# The command sees:
#   AUTHD_PATRONI_DATABASE  the multi-host URL of database `authd`,
#                           postgresql://postgres@127.0.0.1:P1,...:P3/authd
#                           ?target_session_attrs=read-write (trust, local)
#   AUTHD_PATRONI_CONTROL   a script: `primary` (the leader's name and port),
#                           `kill-primary` (kill -9 of the leader's
#                           postmaster; prints the node's name),
#                           `wait-primary SECONDS` (until a leader accepts
#                           writes), `wait-healthy SECONDS` (until three
#                           members run, a leader streams to both others and,
#                           when synchronous, one is its synchronous standby),
#                           `list` (patronictl list), `psql ARGS` (on the leader)
#   AUTHD_PATRONI_DIR       the cluster's directory (logs: etcd.log, nodeN.log)
# With PGBOUNCER=1, a PgBouncer (Debian's 1.18, transaction pooling) in
# front of each node's PostgreSQL: AUTHD_PATRONI_DATABASE names the three
# PgBouncers, and AUTHD_DATABASE_POOLER=transaction is exported for authd.
# With HAPROXY=1, an HAProxy (Debian's) in front of them (or of the
# PostgreSQL ports) sends connections to the node Patroni names primary;
# AUTHD_PATRONI_DATABASE then names HAProxy alone.
#
# Usage: [ASYNC=1] [PGBOUNCER=1] scripts/with-patroni.sh COMMAND [ARGS...]
set -euo pipefail

PG_BIN=/usr/lib/postgresql/15/bin
for tool in "$PG_BIN/initdb" /usr/bin/patroni /usr/bin/etcd /usr/bin/etcdctl; do
  [ -x "$tool" ] || { echo "with-patroni: $tool not found; run scripts/install-deps.sh" >&2; exit 1; }
done
synchronous=true
[ "${ASYNC:-0}" = 1 ] && synchronous=false

directory=$(mktemp -d /tmp/authd-patroni.XXXXXX)
run_as_owner=()
if [ "$(id -u)" = 0 ]; then
  chown postgres:postgres "$directory"
  run_as_owner=(runuser -u postgres --)
fi

# Twelve free ports, bound together by the kernel's choice (so all differ),
# then released: etcd's client and peer ports, then PostgreSQL, the REST API
# and PgBouncer of each node, and HAProxy's.
read -r etcd_port peer_port pg1 pg2 pg3 api1 api2 api3 pb1 pb2 pb3 ha < <(/usr/bin/python3 -c '
import socket
held = [socket.socket() for _ in range(12)]
for s in held: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in held))')
pg_ports=("$pg1" "$pg2" "$pg3")
api_ports=("$api1" "$api2" "$api3")
bouncer_ports=("$pb1" "$pb2" "$pb3")

pids=()
cleanup() {
  # Patroni stops its PostgreSQL on SIGTERM; what a kill left behind goes
  # with pg_ctl's immediate mode.
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  for n in 1 2 3; do
    [ -f "$directory/node$n/data/postmaster.pid" ] &&
      "${run_as_owner[@]}" "$PG_BIN/pg_ctl" -D "$directory/node$n/data" stop -m immediate \
        >/dev/null 2>&1 || true
  done
  if [ "${KEEP_PATRONI_DIR:-0}" = 1 ]; then echo "with-patroni: kept $directory" >&2; else rm -rf "$directory"; fi
}
trap cleanup EXIT

"${run_as_owner[@]}" /usr/bin/etcd --name etcd --data-dir "$directory/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" \
  --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-cluster "etcd=http://127.0.0.1:$peer_port" >"$directory/etcd.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
  ETCDCTL_API=3 etcdctl --endpoints "127.0.0.1:$etcd_port" endpoint health >/dev/null 2>&1 && break
  sleep 0.2
done

for n in 1 2 3; do
  pg=${pg_ports[$((n - 1))]} api=${api_ports[$((n - 1))]}
  "${run_as_owner[@]}" mkdir -m 700 "$directory/node$n"
  "${run_as_owner[@]}" tee "$directory/node$n.yml" >/dev/null <<YAML
scope: authd
namespace: /service/
name: node$n
log: {level: INFO}
restapi: {listen: "127.0.0.1:$api", connect_address: "127.0.0.1:$api"}
etcd3: {hosts: ["127.0.0.1:$etcd_port"]}
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 1
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    primary_start_timeout: 0
    synchronous_mode: $synchronous
    synchronous_mode_strict: $synchronous
    postgresql:
      use_pg_rewind: true
      remove_data_directory_on_rewind_failure: true
      remove_data_directory_on_diverged_timelines: true
      parameters:
        synchronous_commit: "on"
        # A standby whose primary went away retries every 5 s by default:
        # the next primary would wait that long for its synchronous standby.
        wal_retrieve_retry_interval: 500ms
        wal_log_hints: "on"
        max_connections: 300
        max_wal_senders: 10
        max_replication_slots: 10
        shared_buffers: 64MB
  initdb: [{encoding: UTF8}, {locale: C.UTF-8}, {username: postgres}]
  pg_hba:
    - local all all trust
    - host replication postgres 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: "127.0.0.1:$pg"
  connect_address: "127.0.0.1:$pg"
  data_dir: $directory/node$n/data
  bin_dir: $PG_BIN
  pgpass: $directory/node$n/pgpass
  authentication:
    superuser: {username: postgres}
    replication: {username: postgres}
    rewind: {username: postgres}
  parameters: {unix_socket_directories: "$directory/node$n"}
YAML
  "${run_as_owner[@]}" /usr/bin/patroni "$directory/node$n.yml" >"$directory/node$n.log" 2>&1 &
  pids+=($!)
  # The first node bootstraps alone; the others then clone it.
  [ "$n" = 1 ] && for _ in $(seq 1 300); do
    curl -fs "http://127.0.0.1:$api1/primary" >/dev/null && break
    sleep 0.2
  done
done

cat >"$directory/control" <<CONTROL
#!/usr/bin/env bash
# The cluster of scripts/with-patroni.sh: primary | kill-primary |
# wait-primary SECONDS | wait-healthy SECONDS | list | psql ARGS...
set -euo pipefail
api_ports=(${api_ports[*]})
pg_ports=(${pg_ports[*]})
synchronous=$synchronous
# The leader's node number (1-3), asking every node's REST API: /primary
# answers 200 only on the leader whose PostgreSQL runs read-write.
leader() {
  for n in 1 2 3; do
    curl -fs -m 1 "http://127.0.0.1:\${api_ports[\$((n - 1))]}/primary" >/dev/null 2>&1 && { echo "\$n"; return 0; }
  done
  return 1
}
# Accepts writes: the leader's PostgreSQL commits a transaction that has a
# transaction id, so that, when synchronous, the commit returns only once a
# synchronous standby has it (a new primary waits for one to attach).
writable() {
  local n
  n=\$(leader) || return 1
  # Not the commit alone: one was seen to return on a new primary while
  # the next ones waited seconds for a standby, so a streaming synchronous
  # standby is asked for too.
  local sync_set="true"
  [ "\$synchronous" = true ] && sync_set="current_setting('synchronous_standby_names') <> ''
    and exists (select from pg_stat_replication where state = 'streaming' and sync_state = 'sync')"
  [ "\$(PGCONNECT_TIMEOUT=2 timeout 30 psql -X -q -h 127.0.0.1 -p "\${pg_ports[\$((n - 1))]}" \
    -U postgres -d postgres -At -c 'begin read write' -c "select \$sync_set, txid_current() > 0" \
    -c 'commit' 2>/dev/null)" = "t|t" ]
}
healthy() {
  local n expected
  n=\$(leader) || return 1
  expected="streaming streaming"
  [ "\$synchronous" = true ] && expected="streaming streaming 1"
  # Patroni's own record of the synchronous standby (its /sync answers
  # 200): only that node may be promoted, so until then no failover can be.
  if [ "\$synchronous" = true ]; then
    local m found=0
    for m in 1 2 3; do
      curl -fs -m 1 "http://127.0.0.1:\${api_ports[\$((m - 1))]}/sync" >/dev/null 2>&1 && found=1
    done
    [ "\$found" = 1 ] || return 1
  fi
  [ "\$(psql -X -h 127.0.0.1 -p "\${pg_ports[\$((n - 1))]}" -U postgres -d postgres -At -c \
    "select string_agg(state, ' ') || coalesce(' ' || nullif(count(*) filter (where sync_state = 'sync'), 0), '')
       from pg_stat_replication" 2>/dev/null)" = "\$expected" ]
}
wait_for() {
  local check=\$1 limit=\$2 start=\$SECONDS
  until \$check; do
    [ \$((SECONDS - start)) -lt "\$limit" ] || { echo "with-patroni: \$check: not within \${limit}s" >&2; return 1; }
    sleep 0.1
  done
}
case "\${1:-}" in
  primary) n=\$(leader); echo "node\$n \${pg_ports[\$((n - 1))]}" ;;
  kill-primary)
    n=\$(leader)
    kill -KILL "\$(head -1 "$directory/node\$n/data/postmaster.pid")"
    echo "node\$n" ;;
  wait-primary) wait_for writable "\${2:-60}" ;;
  wait-healthy) wait_for healthy "\${2:-120}" ;;
  list) patronictl -c "$directory/node1.yml" list ;;
  psql) shift; n=\$(leader); exec psql -X -h 127.0.0.1 -p "\${pg_ports[\$((n - 1))]}" -U postgres "\$@" ;;
  *) echo "usage: control primary|kill-primary|wait-primary S|wait-healthy S|list|psql ARGS" >&2; exit 2 ;;
esac
CONTROL
chmod 755 "$directory/control"

"$directory/control" wait-healthy 180 || {
  tail -n 30 "$directory"/node*.log >&2
  exit 1
}
"$directory/control" psql -d postgres -q -c 'create database authd' >/dev/null
hosts=$(printf '127.0.0.1:%s,' "${pg_ports[@]}")
if [ "${PGBOUNCER:-0}" = 1 ]; then
  # One PgBouncer a node, in front of that node's PostgreSQL only, in
  # transaction pooling mode (docs/guide/highly-available-database.md): authd's string
  # names the three PgBouncers, and authd runs with --database-pooler
  # transaction (interface.md 20.3).
  command -v pgbouncer >/dev/null ||
    { echo "with-patroni: pgbouncer not found; run scripts/install-deps.sh" >&2; exit 1; }
  "${run_as_owner[@]}" tee "$directory/userlist.txt" >/dev/null <<<'"postgres" ""'
  for n in 1 2 3; do
    "${run_as_owner[@]}" tee "$directory/pgbouncer$n.ini" >/dev/null <<INI
[databases]
* = host=127.0.0.1 port=${pg_ports[$((n - 1))]}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${bouncer_ports[$((n - 1))]}
unix_socket_dir =
auth_type = trust
auth_file = $directory/userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 40
server_reset_query =
logfile = $directory/pgbouncer$n.log
pidfile = $directory/pgbouncer$n.pid
INI
    "${run_as_owner[@]}" pgbouncer -q "$directory/pgbouncer$n.ini" 2>>"$directory/pgbouncer$n.out" &
    pids+=($!)
  done
  hosts=$(printf '127.0.0.1:%s,' "${bouncer_ports[@]}")
  for port in "${bouncer_ports[@]}"; do
    for _ in $(seq 1 50); do
      (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
      sleep 0.1
    done
  done
  export AUTHD_DATABASE_POOLER=transaction
fi
query="?target_session_attrs=read-write"
if [ "${HAPROXY:-0}" = 1 ]; then
  # HAProxy sends every connection to the node whose Patroni REST API
  # answers 200 to GET /primary, and cuts the connections of a node that
  # stops answering so: authd's string names HAProxy alone. Through
  # PgBouncer libpq cannot tell a primary from a standby
  # (docs/design/failover.md#through-pgbouncer), so no target_session_attrs.
  [ "${PGBOUNCER:-0}" = 1 ] && backends=("${bouncer_ports[@]}") || backends=("${pg_ports[@]}")
  cat >"$directory/haproxy.cfg" <<CFG
global
  maxconn 2000
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
listen primary
  bind 127.0.0.1:$ha
  option httpchk GET /primary
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
  server node1 127.0.0.1:${backends[0]} check port ${api_ports[0]}
  server node2 127.0.0.1:${backends[1]} check port ${api_ports[1]}
  server node3 127.0.0.1:${backends[2]} check port ${api_ports[2]}
CFG
  haproxy -q -f "$directory/haproxy.cfg" 2>>"$directory/haproxy.out" &
  pids+=($!)
  hosts="127.0.0.1:$ha,"
  query=""
  for _ in $(seq 1 50); do
    psql -X -h 127.0.0.1 -p "$ha" -U postgres -d postgres -Atc 'select 1' >/dev/null 2>&1 && break
    sleep 0.2
  done
fi
echo "with-patroni: etcd on 127.0.0.1:$etcd_port, authd's database on ${hosts%,}$([ "${PGBOUNCER:-0}" = 1 ] && echo ", PgBouncer")$([ "${HAPROXY:-0}" = 1 ] && echo ", HAProxy") ($([ "$synchronous" = true ] && echo synchronous || echo asynchronous))" >&2

export AUTHD_PATRONI_DATABASE="postgresql://postgres@${hosts%,}/authd$query"
export AUTHD_PATRONI_CONTROL="$directory/control"
export AUTHD_PATRONI_DIR="$directory"
set +e
"$@"
status=$?
exit "$status"
