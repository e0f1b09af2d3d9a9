#!/usr/bin/env bash
# Runs the README's "Five minutes with curl" block exactly as written (only
# the port and the path of the binary are substituted) against a fresh
# authd with its defaults, and checks what the reader is told to expect: a
# login answered 200 with the token in the Authorization header, the User
# on /me, 200 on logout, then 401 with WWW-Authenticate for the same token.
#
#   readme_front_door.sh AUTHD README.md
set -euo pipefail
authd="$1"
readme="$2"
. "$(dirname "$0")/support/walkthrough_work_dir.sh"
enter_work_dir front-door

awk '/^## Five minutes with curl/{on=1; next} /^## /{on=0} on && /^```sh$/{grab=1; next} grab && /^```$/{grab=0; next} grab{print > "block.sh"}' "$readme"
[ -s block.sh ] || { echo "README: the 'Five minutes with curl' block was not found"; exit 1; }

"$authd" serve --listen 127.0.0.1:0 --admin-listen off --port-file port --database sqlite:authd.db >authd.log 2>&1 &
pid=$!
for _ in $(seq 300); do [ -s port ] && curl -fs "http://127.0.0.1:$(cat port)/healthz" >/dev/null && break; sleep 0.05; done
port="$(cat port)"
sed -e "s#\./build/authd#$authd#g" -e "s#http://127.0.0.1:8080#http://127.0.0.1:$port#g" block.sh > run.sh
bash -eu -o pipefail run.sh > out 2>&1 || { cat out; exit 1; }

fail() { echo "README front door: $*"; echo "--- output"; cat out; echo "--- authd log"; cat authd.log; exit 1; }
grep -q '^HTTP/1.1 200' out || fail "no 200 for the login"
grep -qi '^Authorization: Bearer authd_' out || fail "no token in the login's Authorization header"
[ "$(grep -c '"email":"alice@example.com"' out)" -ge 2 ] || fail "the User is not in the login's and /me's bodies"
grep -q '^HTTP/1.1 401' out || fail "the logged-out token was not refused with 401"
grep -qi '^WWW-Authenticate: Bearer error="invalid_token"' out || fail "no WWW-Authenticate on the 401"
[ ! -e login.txt ] || fail "the block leaves login.txt behind"
echo "README front door: 1 passed, 0 failed"
