#!/usr/bin/env bash
# GET /me over HTTPS against plain HTTP (interface.md 13.3): one authd
# binary, started in turn without and with --tls-cert (P, T, P, T ...), each
# on a fresh copy of one seeded SQLite database, so that a shared machine's
# drift hits both alike. wrk keeps its 64 connections alive, so what is
# measured is TLS on every request and response (records, AES-GCM), not the
# handshake.
#
#   bash bench/tls.sh BIN [PAIRS]
#
# Prints each run's requests per second and the ratio of the medians
# (HTTPS / plain). BENCH_DURATION: seconds per run (default 10). Needs what
# bench/run.sh installs (wrk, libargon2-dev) and the openssl command.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$1 PAIRS=${2:-3}
DURATION=${BENCH_DURATION:-10}
WORK=$(mktemp -d /tmp/authd-tls-bench.XXXXXX)
PORT=${BENCH_PORT:-18680}
export BENCH_LUA=$ROOT/bench/lua
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
ulimit -n "$(ulimit -Hn)"

g++ -O2 -std=c++20 "$ROOT/bench/argon2_ceiling.cpp" -lsodium -largon2 -pthread -o "$WORK/argon2_ceiling"
for _ in 1 2 3 4; do "$WORK/argon2_ceiling" --phc "bench password 1"; done >"$WORK/phc.txt"
"$BIN" migrate --database "sqlite:$WORK/seed.db" 2>/dev/null
python3 "$ROOT/bench/seed.py" "$WORK/seed.db" 1000 "$WORK/phc.txt" 4000 "$WORK/tokens.txt"
head -n 2000 "$WORK/tokens.txt" >"$WORK/me_tokens.txt"
# A P-256 certificate, as an ACME client issues by default.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj /CN=127.0.0.1 -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null

run_one() { # LABEL SCHEME [authd args]
  local label=$1 scheme=$2
  shift 2
  rm -f "$WORK"/authd.db*
  cp "$WORK/seed.db" "$WORK/authd.db"
  "$BIN" serve --database "sqlite:$WORK/authd.db" --listen "127.0.0.1:$PORT" --admin-listen off \
    --max-connections-per-client 100000 --mail-dir "$WORK/mail" "$@" >"$WORK/authd.log" 2>&1 &
  local pid=$!
  until curl -fsk "$scheme://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; do sleep 0.02; done
  # Warm-up, not measured (the same as bench/run.sh's GET /me).
  BENCH_TOKENS=$WORK/me_tokens.txt BENCH_ALLOWED=200 wrk -t2 -c64 -d2s --timeout 10s \
    -s "$ROOT/bench/lua/me.lua" "$scheme://127.0.0.1:$PORT" >/dev/null 2>&1 || true
  BENCH_TOKENS=$WORK/me_tokens.txt BENCH_ALLOWED=200 wrk -t2 -c64 -d"${DURATION}s" --timeout 10s \
    -s "$ROOT/bench/lua/me.lua" "$scheme://127.0.0.1:$PORT" >"$WORK/out" 2>&1 || true
  local line
  line=$(sed -n 's/^RESULT //p' "$WORK/out")
  printf '%s %s\n' "$label" "$line"
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$PAIRS"); do
  run_one plain http
  run_one https https --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem"
done | tee "$WORK/runs"
median() { # LABEL: the median of its runs' requests per second
  sed -n "s/^$1 .* rps=\([^ ]*\) .*/\1/p" "$WORK/runs" | sort -n |
    awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
plain=$(median plain) https=$(median https)
awk -v p="$plain" -v h="$https" \
  'BEGIN { printf "median rps: plain %s, https %s; https / plain = %.2f\n", p, h, h / p }'
