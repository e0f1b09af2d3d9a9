#!/usr/bin/env bash
# How long `authd user import` takes for 100,000 accounts with stored hashes
# (interface.md 10.6: "well under a minute"), on SQLite and on PostgreSQL:
#
#   bash bench/import.sh                 # both backends; about a minute plus the build
#   BENCH_IMPORT_BACKENDS=sqlite bash bench/import.sh
#
# It makes the JSON Lines once: BENCH_IMPORT_USERS lines (default 100000),
# distinct e-mails, each with one of four precomputed hashes as
# `passwordHash` (the import checks a hash's format, it does not verify it,
# so four hashes cost what 100,000 would). BENCH_IMPORT_HASH picks the
# kind: argon2id (default: Debian's python3-argon2, authd's parameters) or
# bcrypt ($2b$, cost 10: python3-bcrypt; needs the formats of
# interface.md 10.5). For each backend, on a fresh database that `authd
# migrate` has prepared, it times the import (wall, user and system CPU, peak
# RSS), then the same file again (every line an existing account: the cost
# of resuming), and checks the counts. PostgreSQL is a throw-away cluster of
# scripts/with-postgres.sh. The figures replace the section between the
# import markers of docs/design/performance-import.md.
#
# Environment: AUTHD_BIN (an authd to use; default: build-bench/authd, built
# in Release as bench/run.sh does), BENCH_IMPORT_USERS, BENCH_IMPORT_HASH,
# BENCH_IMPORT_BACKENDS ("sqlite postgres"), BENCH_IMPORT_WRITE=0 (print,
# do not touch docs/design/performance-import.md).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
USERS=${BENCH_IMPORT_USERS:-100000}
KIND=${BENCH_IMPORT_HASH:-argon2id}
BACKENDS=${BENCH_IMPORT_BACKENDS:-sqlite postgres}
BUILD=$ROOT/build-bench
WORK=$BUILD/import
PY=/usr/bin/python3  # Debian's, with python3-argon2 and python3-bcrypt
log() { printf '\n== %s\n' "$*" >&2; }

# --- inside scripts/with-postgres.sh: one import on its cluster ---------------
# bench/import.sh --one BACKEND DATABASE_URL FILE RESULT_FILE
time_import() {
  local backend=$1 database=$2 file=$3 result=$4
  "$AUTHD_BIN" migrate --database "$database" >/dev/null 2>&1
  local run
  for run in first again; do
    /usr/bin/time -f '%e %U %S %M' -o "$WORK/time.txt" \
      "$AUTHD_BIN" user import "$file" --database "$database" >"$WORK/import-$backend-$run.out" 2>"$WORK/import-$backend-$run.err" ||
      { cat "$WORK/import-$backend-$run.out" "$WORK/import-$backend-$run.err" >&2; echo "import failed" >&2; return 1; }
    read -r wall user sys rss <"$WORK/time.txt"
    echo "$backend $run $wall $user $sys $rss $(tail -n 1 "$WORK/import-$backend-$run.out" | tr ' ' '_')" >>"$result"
  done
}
if [ "${1:-}" = --one ]; then
  AUTHD_BIN=$AUTHD_BIN WORK=$WORK time_import "$2" "$3" "$4" "$5"
  exit
fi

# --- 0. what we need ----------------------------------------------------------
missing=()
for pkg in python3-argon2 python3-bcrypt postgresql-15 time; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
if [ -z "${AUTHD_BIN:-}" ]; then
  log "building authd (Release) in build-bench/"
  bash scripts/install-deps.sh
  flock /tmp/authd-build.lock sh -c "cmake -S . -B '$BUILD' -G Ninja -DCMAKE_BUILD_TYPE=Release -DAUTHD_TESTS=OFF >/dev/null && ninja -C '$BUILD' authd"
  AUTHD_BIN=$BUILD/authd
fi
AUTHD_BIN=$(cd "$(dirname "$AUTHD_BIN")" && pwd)/$(basename "$AUTHD_BIN")
export AUTHD_BIN
rm -rf "$WORK"
mkdir -p "$WORK"

# --- 1. the lines -------------------------------------------------------------
log "making $USERS JSON lines with $KIND hashes"
LINES=$WORK/users.jsonl
"$PY" - "$USERS" "$KIND" "$LINES" <<'PY'
import json, sys
users, kind, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if kind == "argon2id":
    import argon2
    hasher = argon2.PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
    hashes = [hasher.hash("import password %d" % i) for i in range(4)]
elif kind == "bcrypt":
    import bcrypt
    hashes = [bcrypt.hashpw(b"import password %d" % i, bcrypt.gensalt(10)).decode() for i in range(4)]
else:
    sys.exit("BENCH_IMPORT_HASH: argon2id or bcrypt")
with open(out, "w") as f:
    for n in range(1, users + 1):
        f.write(json.dumps({"email": "import%d@bench.test" % n, "passwordHash": hashes[n % 4],
                            "displayName": "Import User %d" % n, "emailVerified": True},
                           separators=(",", ":")) + "\n")
PY
echo "$(wc -l <"$LINES") lines, $(du -h "$LINES" | cut -f1)" >&2

RESULT=$WORK/result.txt
: >"$RESULT"
{
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "nproc=$(nproc)"
  echo "model=$(lscpu | grep 'Model name' | cut -d: -f2 | sed 's/^ *//')"
  echo "kernel=$(uname -r)"
  echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$WORK/machine.env"

# --- 2. the imports -----------------------------------------------------------
for backend in $BACKENDS; do
  case $backend in
    sqlite)
      log "SQLite: authd user import ($USERS lines)"
      time_import sqlite "sqlite:$WORK/import.db" "$LINES" "$RESULT"
      ;;
    postgres)
      log "PostgreSQL 15 (scripts/with-postgres.sh): authd user import ($USERS lines)"
      bash scripts/with-postgres.sh bash -c '
        set -euo pipefail
        psql -q "$AUTHD_TEST_POSTGRES/postgres" -c "CREATE DATABASE authd_import"
        bash "$0" --one postgres "$AUTHD_TEST_POSTGRES/authd_import" "$1" "$2"' \
        "$ROOT/bench/import.sh" "$LINES" "$RESULT"
      ;;
    *) echo "BENCH_IMPORT_BACKENDS: sqlite and/or postgres" >&2; exit 2 ;;
  esac
done
echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$WORK/machine.env"

# --- 3. the report ------------------------------------------------------------
REPORT=$WORK/report.md
ROOT=$ROOT "$PY" - "$WORK/machine.env" "$RESULT" "$USERS" "$KIND" "$AUTHD_BIN" >"$REPORT" <<'PY'
import os, sys
env = dict(line.rstrip("\n").split("=", 1) for line in open(sys.argv[1]))
rows = [line.split() for line in open(sys.argv[2]) if line.strip()]
users, kind, binary = int(sys.argv[3]), sys.argv[4], sys.argv[5]
names = {"sqlite": "SQLite", "postgres": "PostgreSQL 15"}
print("Run of %s: `bash bench/import.sh` (%d lines, `passwordHash` %s)." % (env["date"], users, kind))
print()
print("Machine: `nproc` %s, `lscpu | grep 'Model name'`: %s, kernel %s. Load average (1, 5, 15 min) "
      "before: %s; after: %s (the machine is shared)." % (
          env["nproc"], env["model"], env["kernel"], env["load_before"], env.get("load_after", "?")))
print()
print("authd: `%s`." % os.path.relpath(binary, os.environ.get("ROOT", "/")))
print()
print("| backend | run | wall s | per 100,000 s | user CPU s | system CPU s | peak RSS MiB | of the minute allowed | printed |")
print("|---|---|---:|---:|---:|---:|---:|---:|---|")
for backend, run, wall, user, system, rss, summary in rows:
    wall = float(wall)
    per = wall * 100000 / users
    what = "fresh database" if run == "first" else "same file again (all existing)"
    print("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.1f | %.2f | `%s` |" % (
        names[backend], what, wall, per, float(user), float(system), int(rss) / 1024, per / 60,
        summary.replace("_", " ")))
PY
cat "$REPORT"
if [ "${BENCH_IMPORT_WRITE:-1}" != 0 ]; then
  "$PY" - docs/design/performance-import.md "$REPORT" <<'PY'
import sys
path, report = sys.argv[1], open(sys.argv[2]).read()
text = open(path).read()
begin, end = "<!-- import:begin (generated by bench/import.sh: do not edit by hand) -->", "<!-- import:end -->"
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(path, "w").write(head + begin + "\n\n" + report + "\n" + end + tail)
PY
  echo "docs/design/performance-import.md updated" >&2
fi
