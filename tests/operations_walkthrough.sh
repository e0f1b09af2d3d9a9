#!/usr/bin/env bash
# Runs the sh blocks of two sections of the guide exactly as written (only
# the path of the binary and the two ports are substituted), in order, in
# one folder, against a fresh authd, as tests/readme_walkthrough.sh does for
# docs/guide/getting-started.md:
#   "Admin keys" of docs/guide/operations.md (the second argument): keys
#     created and listed, an account created, found, read, listed,
#     refused to a read key and changed with a write key, its sessions
#     listed and ended, the account erased, a key revoked
#     (interface.md 10.2-10.4);
#   "Moving your users to authd" of docs/guide/migrating-users.md (the
#     third argument): a Django-style store (pbkdf2_sha256) and a
#     Supabase-style store (bcrypt $2a$ and $2b$) exported as JSON Lines,
#     imported twice (nothing twice) and with invalid lines (interface.md
#     10.6), then each user's first login answered 200 and the stored hash
#     upgraded to argon2id (4.2, 10.5).
# The second section needs authd to accept those hash formats (interface.md
# 10.5); it needs Debian's python3 with its bcrypt module and the sqlite3
# shell (scripts/install-deps.sh installs both).
set -euo pipefail
authd="$1"
operations="$2"
migrating="$3"
. "$(dirname "$0")/support/walkthrough_work_dir.sh"
enter_work_dir operations
# The walkthrough says "Debian's python3": put it first, before any other
# python3 on the PATH (a pyenv shim, say) that lacks the bcrypt module.
export PATH="/usr/bin:$PATH"

# The sh blocks of one "## " section of FILE, as PREFIX0.sh, PREFIX1.sh, ...;
# prints how many.
extract() {
  awk -v section="## $1" -v prefix="$2" '
    BEGIN { n = 0 }
    $0 == section { on = 1; next }
    /^## / { on = 0 }
    on && /^```sh$/ { grab = 1; next }
    grab && /^```$/ { grab = 0; n++; next }
    grab { print > (prefix n ".sh") }
    END { print n }' "$3"
}
[ "$(extract 'Admin keys' keys "$operations")" = 1 ] ||
  { echo "operations walkthrough: expected 1 sh block under \"## Admin keys\""; exit 1; }
[ "$(extract 'Moving your users to authd' move "$migrating")" = 5 ] ||
  { echo "operations walkthrough: expected 5 sh blocks under \"## Moving your users to authd\""; exit 1; }

"$authd" serve --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --port-file port \
  --admin-port-file admin-port --database sqlite:authd.db >authd.log 2>&1 &
pid=$!
for _ in $(seq 300); do [ -s port ] && curl -fs "http://127.0.0.1:$(cat port)/healthz" >/dev/null && break; sleep 0.05; done
port="$(cat port)"
admin_port="$(cat admin-port)"

substitute() {
  sed -e "s#\./build/authd#$authd#g" -e "s#http://127.0.0.1:8080#http://127.0.0.1:$port#g" \
    -e "s#http://127.0.0.1:8081#http://127.0.0.1:$admin_port#g" "$1"
}
outputs=()
fail() {
  echo "operations walkthrough: $*"
  for out in "${outputs[@]}"; do echo "--- $out"; cat "$out"; done
  echo "--- authd log"
  cat authd.log
  exit 1
}
# Runs block FILE (substituted) as a reader pasting it would, its output in FILE.out.
run_block() {
  substitute "$1.sh" >"$1.run.sh"
  outputs+=("$1.out")
  bash -eu -o pipefail "$1.run.sh" >"$1.out" 2>&1 || fail "$1.sh (as run: $1.run.sh) exited with status $?"
}

# --- Admin keys --------------------------------------------------------------
run_block keys0
out=keys0.out
grep -q '^{"name":"dashboard","scope":"read","createdAt":"[^"]*","lastUsedAt":null}$' $out || fail "admin-key list did not show the read key"
grep -q '^{"name":"walkthrough","scope":"write","createdAt":"[^"]*","lastUsedAt":null}$' $out || fail "admin-key list did not show the write key"
grep -q 'authdak_' $out && fail "an admin key was printed"
grep -q '^HTTP/1.1 201 Created' $out || fail "POST /admin/users did not answer 201"
grep -q '^Location: /admin/users/[0-9a-f-]\{36\}' $out || fail "no Location on the 201"
grep -q '^{"nextCursor":null,"users":\[{.*"email":"carol@example.com"' $out || fail "GET /admin/users?email= did not find carol"
grep -q '"displayName":"Carol".*"disabled":false,"lastLoginAt":null,"mfa":\[\]}$' $out || fail "GET /admin/users/{id} did not answer the admin view"
grep -q '^{"code":403,"message":"Forbidden"}$' $out || fail "the read key was not refused a PATCH with 403"
grep -q '"emailVerifiedAt":"20[^"]*".*"phone":"+15551234567"' $out || fail "the PATCH did not set the phone and verify the e-mail"
grep -qx '200' $out || fail "carol's login did not answer 200"
grep -q '^{"sessions":\[{"clientAddress":"127.0.0.1","createdAt":"[^"]*","expiresAt":"[^"]*","id":"[0-9a-f-]*","userAgent":"curl/' $out ||
  fail "GET /admin/users/{id}/sessions did not list carol's session"
[ "$(grep -c '^HTTP/1.1 204 No Content' $out)" = 2 ] || fail "the two DELETEs did not answer 204"
grep -q '^{"code":404,"message":"Not Found"}$' $out || fail "the erased account was not 404"
tail -n 1 $out | grep -qx '{"code":401,"message":"Unauthorized Error"}' || fail "the revoked key was not refused with 401"
[ "$("$authd" admin-key list --database sqlite:authd.db | grep -c '"name"')" = 1 ] || fail "the revoked key is still listed"

# --- Moving your users to authd ----------------------------------------------
run_block move0   # the two stand-in stores
[ -s django.db ] && [ -s supabase.db ] || fail "the stand-in stores were not made"
run_block move1   # the export
[ "$(grep -c '^{"email":' move1.out)" = 4 ] || fail "the export did not print four JSON lines"
grep -q '"passwordHash":"pbkdf2_sha256\$600000\$' move1.out || fail "no Django pbkdf2_sha256 hash in the export"
grep -q '"passwordHash":"\$2a\$10\$' move1.out || fail "no \$2a\$ bcrypt hash in the export"
grep -q '"passwordHash":"\$2b\$10\$' move1.out || fail "no \$2b\$ bcrypt hash in the export"
grep -q '"email":"ed@example.com","passwordHash":null' move1.out || fail "Ed's unusable password was not exported as null"
run_block move2   # three imports
grep -qx 'created 4, existing 0, invalid 0' move2.out || fail "the first import did not create the four accounts"
grep -qx 'created 0, existing 4, invalid 0' move2.out || fail "the second import did not count the four as existing"
grep -q '^line 1: email: not a valid address$' move2.out || fail "the invalid e-mail on line 1 was not reported"
grep -q '^line 3: passwordHash: ' move2.out || fail "the unusable hash on line 3 was not reported"
grep -qx 'created 0, existing 0, invalid 2' move2.out || fail "the third import's summary is wrong"
grep -qx 'exit status 1' move2.out || fail "an import with invalid lines did not exit with status 1"
grep -q 'md5\$x\|pbkdf2_sha256\$\|\$2[ab]\$' move2.out && fail "an import printed a hash"
run_block move3   # the kinds as imported
grep -qx 'dora@example.com|pbkdf2_sha256' move3.out || fail "dora's hash is not the imported pbkdf2_sha256"
grep -qx 'ed@example.com|' move3.out || fail "ed has a password"
grep -qx 'fay@example.com|\$2a' move3.out || fail "fay's hash is not the imported \$2a\$"
grep -qx 'gus@example.com|\$2b' move3.out || fail "gus's hash is not the imported \$2b\$"
run_block move4   # the first logins, and the kinds after them
for who in dora fay gus; do
  grep -qx "$who: 200" move4.out || fail "$who's first login with the old password did not answer 200"
  grep -qx "$who@example.com|\\\$argon2id" move4.out || fail "$who's hash was not upgraded to argon2id"
done
[ ! -e users.jsonl ] && [ ! -e django.db ] || fail "the walkthrough did not clean up"
# Logins go on working with the upgraded hashes.
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/login" -H 'Content-Type: application/json' \
    -d "{\"email\":\"dora@example.com\",\"password\":\"dora's django passphrase\"}")" = 200 ] || fail "dora's second login failed"
echo "operations walkthrough: 2 passed, 0 failed"
