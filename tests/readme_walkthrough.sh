#!/usr/bin/env bash
# Runs the curl walkthrough of docs/guide/getting-started.md (the
# walkthrough the README points to) exactly as written (only the port and the path
# of the binary are substituted) against a fresh authd, and checks what a
# reader is told to expect: 200 on login with a token header, the
# User on /me, 200 on logout, then 401; a reset mail after /forgot, and a
# reset with its token after which the new password logs in; the sessions
# listed, one ended by id, a password change, the other sessions ended; a
# sign-up (the server runs with --signup open), its mail, and the 201 of
# /verify. Then the block of the "Admin API" section: an admin key, an
# account created (201), listed, found and erased (204). Then the block of
# "Second factor (TOTP)": a factor enrolled and confirmed with oathtool's
# codes, the password alone refused with Authd-Second-Factor, a login with
# a code and one with a recovery code.
set -euo pipefail
authd="$1"
guide="$2"
. "$(dirname "$0")/support/walkthrough_work_dir.sh"
enter_work_dir readme

# The sh blocks of the "Walkthrough with curl" section, in order.
awk 'BEGIN{n=0} /^## Walkthrough with curl/{on=1; next} /^## /{on=0} on && /^```sh$/{grab=1; next} grab && /^```$/{grab=0; n++; next} grab{print > ("block" n ".sh")}' "$guide"
[ -s block0.sh ] && [ -s block1.sh ] && [ -s block2.sh ] && [ -s block3.sh ] || { echo "getting-started walkthrough blocks not found"; exit 1; }
awk '/^## Admin API/{on=1; next} /^## /{on=0} on && /^```sh$/{grab=1; next} grab && /^```$/{grab=0; next} grab{print > "admin-block.sh"}' "$guide"
[ -s admin-block.sh ] || { echo "getting-started Admin API block not found"; exit 1; }
awk '/^## Second factor \(TOTP\)/{on=1; next} /^## /{on=0} on && /^```sh$/{grab=1; next} grab && /^```$/{grab=0; next} grab{print > "mfa-block.sh"}' "$guide"
[ -s mfa-block.sh ] || { echo "getting-started Second factor block not found"; exit 1; }

"$authd" serve --signup open --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --port-file port --admin-port-file admin-port --database sqlite:authd.db >authd.log 2>&1 &
pid=$!
for _ in $(seq 300); do [ -s port ] && curl -fs "http://127.0.0.1:$(cat port)/healthz" >/dev/null && break; sleep 0.05; done
port="$(cat port)"
admin_port="$(cat admin-port)"

substitute() { sed -e "s#\./build/authd#$authd#g" -e "s#http://127.0.0.1:8080#http://127.0.0.1:$port#g" -e "s#http://127.0.0.1:8081#http://127.0.0.1:$admin_port#g" "$1"; }
substitute block0.sh > walkthrough.sh
substitute block1.sh > forgot.sh
substitute block2.sh > account.sh
substitute block3.sh > signup.sh
substitute admin-block.sh > admin.sh
substitute mfa-block.sh > mfa.sh
bash -eu -o pipefail walkthrough.sh > walkthrough.out 2>&1 || { cat walkthrough.out; exit 1; }
bash -eu -o pipefail forgot.sh > forgot.out 2>&1 || { cat forgot.out; exit 1; }
bash -eu -o pipefail account.sh > account.out 2>&1 || { cat account.out; exit 1; }
bash -eu -o pipefail signup.sh > signup.out 2>&1 || { cat signup.out; exit 1; }
bash -eu -o pipefail admin.sh > admin.out 2>&1 || { cat admin.out; exit 1; }
touch mfa.out

fail() { echo "getting-started walkthrough: $*"; echo "--- output"; cat walkthrough.out forgot.out account.out signup.out admin.out mfa.out; echo "--- authd log"; cat authd.log; exit 1; }
# The default public URL (http://localhost:8080) names a host, so a first
# start has passkeys (interface.md 16.1): no passkeys_unavailable, and the
# sign-in options answer 200.
! grep -q passkeys_unavailable authd.log || fail "passkeys are off with the default public URL"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/webauthn/login/options" -H 'Content-Type: application/json' -d '{}')" = 200 ] ||
  fail "the passkey sign-in options did not answer 200 with the default public URL"
grep -q '^HTTP/1.1 200 OK' walkthrough.out || fail "login did not answer 200"
grep -q '^Authorization: Bearer authd_' walkthrough.out || fail "no token header on login"
[ "$(grep -o '"email":"alice@example.com"' walkthrough.out | wc -l)" -ge 3 ] || fail "login, /me and /logout should each show the User"
tail -n 1 walkthrough.out | grep -q '"code":401' || fail "the token was not refused after logout"
grep -q '^HTTP/1.1 401 Unauthorized' walkthrough.out || fail "no 401 status line at the end"
grep -q '{"email":"alice@example.com"}' forgot.out || fail "/forgot did not answer the canonical e-mail"
grep -q 'reset#token=authdrt_' mail/*.eml || fail "no reset mail with a link"
grep -q '"emailVerifiedAt":"' forgot.out || fail "the reset did not answer the User with a verified e-mail"
# The two logins of the last block use the password the reset set.
grep -q '"current":true,[^}]*"userAgent":"laptop"' account.out || fail "the reset's password did not log in, or /sessions did not list the laptop's session as current"
grep -q '"userAgent":"phone"' account.out || fail "/sessions did not list the phone's session"
[ "$(grep -c '^HTTP/1.1 204 No Content' account.out)" = 2 ] || fail "the two DELETEs did not answer 204"
grep -q '"code":401' account.out || fail "the phone's token was not refused after its session ended"
grep -q '"email":"alice@example.com"' account.out || fail "/password did not answer the User"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/login" -H 'Content-Type: application/json' \
    -d '{"email":"alice@example.com","password":"yet another passphrase"}')" = 200 ] || fail "the changed password does not log in"
grep -q '{"email":"bob@example.com"}' signup.out || fail "/signup did not answer the canonical e-mail"
grep -q 'verify#token=authdsu_' mail/*.eml || fail "no sign-up mail with a link"
grep -q '^HTTP/1.1 201 Created' signup.out || fail "/verify did not answer 201"
grep -q '^Authorization: Bearer authd_' signup.out || fail "no token header on /verify"
grep -q '"displayName":"Bob"' signup.out || fail "/verify did not answer the new User"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/login" -H 'Content-Type: application/json' \
    -d '{"email":"bob@example.com","password":"bob has a long passphrase"}')" = 200 ] || fail "the signed-up account does not log in"
# The Admin API block (interface.md 10.2-10.4).
grep -q '^{"createdAt":"[^"]*",.*"email":"dave@example.com".*"disabled":false,"lastLoginAt":null,"mfa":\[\]}$' admin.out ||
  fail "POST /admin/users did not answer the admin view of dave"
grep -q '"nextCursor":null,"users":\[{.*"email":"alice@example.com".*"email":"bob@example.com".*"email":"dave@example.com"' admin.out ||
  fail "GET /admin/users did not list alice, bob and dave in creation order"
grep -q '^HTTP/1.1 204 No Content' admin.out || fail "DELETE /admin/users/{id} did not answer 204"
grep -q 'authdak_' admin.out && fail "the admin key was printed"
set +e; "$authd" user show --email dave@example.com --database sqlite:authd.db >/dev/null 2>&1; shown=$?; set -e
[ "$shown" = 4 ] || fail "the erased account still exists (user show exited $shown)"
# The Second factor block (interface.md 12), last: after it alice's password
# alone no longer logs in.
bash -eu -o pipefail mfa.sh > mfa.out 2>&1 || { cat mfa.out; exit 1; }
grep -q '^{"recoveryCodes":\["[a-z2-7-]*"' mfa.out || fail "the confirmation did not answer the recovery codes"
grep -q '^Authd-Second-Factor: totp' mfa.out || fail "the password alone was not refused with Authd-Second-Factor"
[ "$(grep -c '^HTTP/1.1 200 OK' mfa.out)" = 2 ] || fail "the logins with a code and with a recovery code did not both answer 200"
[ "$(grep -c '^Authorization: Bearer authd_' mfa.out)" = 2 ] || fail "no token on the logins with a second factor"
[ ! -e recovery-codes.json ] || fail "the block left its recovery codes behind"
echo "getting-started walkthrough: 1 passed, 0 failed"
