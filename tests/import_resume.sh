#!/usr/bin/env bash
# interface.md 10.6: an import cut off by kill -9 and started again on the
# same file completes the rest, with no account twice. 30,000 JSON lines
# with stored hashes are imported into a fresh SQLite database; the first
# run is killed (SIGKILL) once its first batches are committed; the second
# run must then report every line as created or existing, and the database
# must hold each address exactly once. Polls, never sleeps a fixed time.
set -euo pipefail
authd="$(readlink -f "$1")"
work="$(mktemp -d /tmp/authd-import-XXXXXX)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
lines=30000
hash='$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$5D4ru8CsYSU4m1qXAc7R2eR0pbf3ViCrLRw6uzd2gZM'
awk -v n="$lines" -v h="$hash" 'BEGIN {
  for (i = 1; i <= n; i++) printf "{\"email\":\"user%d@example.com\",\"passwordHash\":\"%s\"}\n", i, h
}' > users.jsonl
db="sqlite:$work/authd.db"
"$authd" migrate --database "$db" >/dev/null 2>&1

"$authd" user import users.jsonl --database "$db" > first.txt 2>&1 &
pid=$!
# Wait until at least one batch is committed (or the run ended first).
for _ in $(seq 1 6000); do
  committed="$(sqlite3 "$work/authd.db" 'select count(*) from users' 2>/dev/null || echo 0)"
  if [ "${committed:-0}" -gt 0 ] || ! kill -0 "$pid" 2>/dev/null; then break; fi
  sleep 0.01
done
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
pid=""
before="$(sqlite3 "$work/authd.db" 'select count(*) from users')"
echo "after kill -9: $before of $lines committed"

"$authd" user import users.jsonl --database "$db" > second.txt
summary="$(tail -n 1 second.txt)"
echo "second run: $summary"
created="$(sed -n 's/^created \([0-9]*\), existing \([0-9]*\), invalid \([0-9]*\)$/\1/p' <<<"$summary")"
existing="$(sed -n 's/^created \([0-9]*\), existing \([0-9]*\), invalid \([0-9]*\)$/\2/p' <<<"$summary")"
invalid="$(sed -n 's/^created \([0-9]*\), existing \([0-9]*\), invalid \([0-9]*\)$/\3/p' <<<"$summary")"
total="$(sqlite3 "$work/authd.db" 'select count(*) from users')"
distinct="$(sqlite3 "$work/authd.db" 'select count(distinct email) from users')"
fail=0
[ "$existing" = "$before" ] || { echo "FAIL: existing $existing, but $before were committed before the kill"; fail=1; }
[ "$((created + existing))" = "$lines" ] || { echo "FAIL: created + existing = $((created + existing)), not $lines"; fail=1; }
[ "$invalid" = "0" ] || { echo "FAIL: invalid $invalid"; fail=1; }
[ "$total" = "$lines" ] && [ "$distinct" = "$lines" ] ||
  { echo "FAIL: $total rows, $distinct addresses, for $lines lines"; fail=1; }
if [ "$fail" = 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; exit 1; fi
