#!/usr/bin/env bash
# How long authd takes to deliver a backlog of reset mails to a slow relay:
# BACKLOG /forgot requests for as many existing accounts, answered at once,
# then the time from the first request until the relay (tests/support/smtp_sink.py, answering each
# message after --delay-ms) holds every mail.
#
#   bash bench/outbox_drain.sh AUTHD_BIN [BACKLOG] [DELAY_MS] [EXTRA serve ARGS...]
#
# Defaults: 1,000 mails, 200 ms per message. Prints one line:
#   drain backlog=1000 delay_ms=200 seconds=... mails_per_s=...
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$1 BACKLOG=${2:-1000} DELAY=${3:-200}
shift $(($# < 3 ? $# : 3))
WORK=$(mktemp -d /tmp/authd-drain.XXXXXX)
PORT=${BENCH_PORT:-18680}
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT

g++ -O2 -std=c++20 "$ROOT/bench/argon2_ceiling.cpp" -lsodium -largon2 -pthread -o "$WORK/argon2_ceiling"
"$WORK/argon2_ceiling" --phc "bench password 1" >"$WORK/phc.txt"
"$BIN" migrate --database "sqlite:$WORK/authd.db" 2>/dev/null
python3 "$ROOT/bench/seed.py" "$WORK/authd.db" "$BACKLOG" "$WORK/phc.txt" 1 "$WORK/tokens.txt"

/usr/bin/python3 "$ROOT/tests/support/smtp_sink.py" --mail-dir "$WORK/sink/mail" \
  --port-file "$WORK/sink.port" --delay-ms "$DELAY" >"$WORK/sink.log" 2>&1 &
until [ -s "$WORK/sink.port" ]; do sleep 0.05; done
"$BIN" serve --database "sqlite:$WORK/authd.db" --listen "127.0.0.1:$PORT" --admin-listen off \
  --mail-transport smtp --smtp-url "smtp://127.0.0.1:$(cat "$WORK/sink.port")" \
  --smtp-starttls off --reset-mail-delay 1ms --forgot-client-limit 1000000/1m "$@" \
  >"$WORK/authd.log" 2>&1 &
until curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; do sleep 0.02; done

# From the first request: the requests take a few seconds, and delivery
# starts with the first of them.
start=$(date +%s.%N)
python3 - "$PORT" "$BACKLOG" <<'PY'
import http.client, json, sys
port, count = int(sys.argv[1]), int(sys.argv[2])
connection = http.client.HTTPConnection("127.0.0.1", port)
for n in range(1, count + 1):
    body = json.dumps({"email": "user%d@bench.test" % n})
    connection.request("POST", "/forgot", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    assert response.status == 200, response.status
PY
while [ "$(find "$WORK/sink/mail" -name '*.eml' 2>/dev/null | wc -l)" -lt "$BACKLOG" ]; do sleep 0.1; done
end=$(date +%s.%N)
awk -v b="$BACKLOG" -v d="$DELAY" -v s="$start" -v e="$end" \
  'BEGIN {printf "drain backlog=%d delay_ms=%d seconds=%.1f mails_per_s=%.1f\n", b, d, e - s, b / (e - s)}'
