#!/usr/bin/env bash
# The full fault campaign of interface.md 20.2 (docs/design/failover.md):
# FAILOVERS kills of the primary (default 10) on a synchronous Patroni
# cluster (scripts/with-patroni.sh), which must lose no acknowledged write;
# then ASYNC_FAILOVERS (default 10) on the same cluster made asynchronous,
# whose losses are reported, not failed on; then PGBOUNCER_FAILOVERS
# (default 10) on the synchronous cluster with a PgBouncer in front of each
# node (transaction pooling, authd with --database-pooler transaction) and
# HAProxy sending authd's connections to the primary's PgBouncer, which must
# lose nothing either. With MULTIHOST_PGBOUNCER_FAILOVERS set, as many with
# the three PgBouncers in authd's multi-host string instead of HAProxy:
# off by default, because libpq cannot tell a primary through PgBouncer
# (docs/design/failover.md#through-pgbouncer). The reports go to DIR
# (default test-artifacts/failover/) as synchronous.json, asynchronous.json,
# pgbouncer-haproxy.json and pgbouncer-multihost.json.
# CI runs the short form (3 failovers, synchronous): the ctest test
# failover.Interface_20_2_SynchronousClusterLosesNoAcknowledgedWrite.
#
# Usage: [FAILOVERS=N] [ASYNC_FAILOVERS=N] [PGBOUNCER_FAILOVERS=N]
#        [MULTIHOST_PGBOUNCER_FAILOVERS=N] scripts/failover-campaign.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-test-artifacts/failover}
mkdir -p "$out"
bash scripts/build.sh --target authd
bash scripts/with-patroni.sh /usr/bin/python3 tests/failover/campaign.py --authd build/authd \
  --failovers "${FAILOVERS:-10}" --report "$out/synchronous.json"
ASYNC=1 bash scripts/with-patroni.sh /usr/bin/python3 tests/failover/campaign.py \
  --authd build/authd --failovers "${ASYNC_FAILOVERS:-10}" --allow-loss \
  --report "$out/asynchronous.json"
PGBOUNCER=1 HAPROXY=1 bash scripts/with-patroni.sh /usr/bin/python3 tests/failover/campaign.py \
  --authd build/authd --failovers "${PGBOUNCER_FAILOVERS:-10}" --report "$out/pgbouncer-haproxy.json"
if [ "${MULTIHOST_PGBOUNCER_FAILOVERS:-0}" -gt 0 ]; then
  PGBOUNCER=1 bash scripts/with-patroni.sh /usr/bin/python3 tests/failover/campaign.py \
    --authd build/authd --failovers "$MULTIHOST_PGBOUNCER_FAILOVERS" \
    --report "$out/pgbouncer-multihost.json"
fi
echo "failover-campaign: reports in $out" >&2
