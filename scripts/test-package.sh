#!/usr/bin/env bash
# Builds the Debian package with CPack, installs it with apt on this machine
# (as root), validates the systemd unit, starts `authd serve` from the
# installed paths with the packaged configuration file, creates a user with
# the installed CLI, logs in with curl, scrapes /metrics, then stops authd
# and removes the package (keeping nothing behind but what apt keeps).
#
# systemd is usually not running in CI containers, so the server is started
# directly as the unit would start it (same user, binary and --config).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "test-package: run as root (it installs and removes the package)" >&2
  exit 2
fi

# Never on a machine where authd is, or was, really installed: the clean-up
# below purges the package and deletes /var/lib/authd (the accounts). CI
# machines are fresh; anywhere else, refuse before touching anything.
preexisting=()
dpkg -s authd >/dev/null 2>&1 && preexisting+=("the authd package is installed")
for path in /var/lib/authd /etc/authd /usr/bin/authd /usr/lib/systemd/system/authd.service; do
  [ -e "$path" ] && preexisting+=("$path exists")
done
if [ ${#preexisting[@]} -gt 0 ]; then
  {
    echo "test-package: REFUSED: this machine already has authd:"
    printf '  - %s\n' "${preexisting[@]}"
    echo "test-package: it installs, then purges the package and deletes its state; run it on a"
    echo "test-package: fresh machine or container (as CI does). Nothing was changed here."
  } >&2
  exit 2
fi
# The system user and group are created by the package's postinst; they are
# removed at the end only if they did not exist before.
user_existed=no; group_existed=no
getent passwd authd >/dev/null && user_existed=yes
getent group authd >/dev/null && group_existed=yes

bash scripts/build.sh
rm -f build/authd_*.deb
(cd build && cpack -G DEB >/dev/null)
deb=$(ls build/authd_*.deb)
echo "test-package: built $deb"
dpkg-deb --info "$deb" | sed -n '/Depends/p'

export DEBIAN_FRONTEND=noninteractive
work=$(mktemp -d /tmp/authd-package-test-XXXXXX)
server_pid=""
# Removes what this run created, nothing else: the checks above made sure
# that the package, /var/lib/authd and /etc/authd were not there before.
cleanup() {
  if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null || true; fi
  if dpkg -s authd >/dev/null 2>&1 || [ -e /var/lib/dpkg/info/authd.list ]; then
    apt-get purge -y -qq authd >/dev/null 2>&1 || true
  fi
  rm -rf "$work" /var/lib/authd /etc/authd
  if [ "$user_existed" = no ] && getent passwd authd >/dev/null; then
    userdel authd 2>/dev/null || true
  fi
  if [ "$group_existed" = no ] && getent group authd >/dev/null; then
    groupdel authd 2>/dev/null || true
  fi
}
trap cleanup EXIT
apt-get install -y -qq "./$deb" >/dev/null

fail() {
  echo "test-package: FAILED: $*" >&2
  [ -f "$work/authd.log" ] && tail -n 20 "$work/authd.log" >&2
  exit 1
}

# The installed layout.
test -x /usr/bin/authd || fail "no /usr/bin/authd"
test -f /usr/lib/systemd/system/authd.service || fail "no unit"
test -f /etc/authd/authd.toml || fail "no /etc/authd/authd.toml"
getent passwd authd >/dev/null || fail "postinst did not create the authd user"
[ "$(stat -c '%U:%G %a' /var/lib/authd)" = "authd:authd 700" ] || fail "state directory owner/mode"
[ "$(stat -c '%U:%G %a' /etc/authd/authd.toml)" = "root:authd 640" ] || fail "config owner/mode"
grep -qx '/etc/authd/authd.toml' /var/lib/dpkg/info/authd.conffiles || fail "config is not a conffile"

# The unit: systemd's own checker, when it can run here.
if command -v systemd-analyze >/dev/null; then
  if ! out=$(systemd-analyze verify /usr/lib/systemd/system/authd.service 2>&1); then
    echo "$out" >&2
    fail "systemd-analyze verify"
  fi
  [ -z "$out" ] || echo "$out"
  echo "test-package: systemd-analyze verify passed"
fi

# The configuration the service would run with.
runuser -u authd -- /usr/bin/authd config --config /etc/authd/authd.toml >"$work/effective.toml" ||
  fail "authd config"
grep -q "^database = 'sqlite:/var/lib/authd/authd.db'" "$work/effective.toml" || fail "database"

# Start as the unit does: user authd, the packaged config; flags win over
# the file for the port (any free one) and the port file.
chown authd "$work"
# setpriv execs authd itself (runuser would stay as its parent), so that
# the signal below reaches authd and its exit status is authd's.
(cd /var/lib/authd && exec setpriv --reuid=authd --regid=authd --init-groups -- \
  /usr/bin/authd serve --config /etc/authd/authd.toml --listen 127.0.0.1:0 \
  --admin-listen 127.0.0.1:0 --admin-port-file "$work/admin_port" \
  --port-file "$work/port") >"$work/authd.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 500); do
  [ -s "$work/port" ] && break
  kill -0 "$server_pid" 2>/dev/null || fail "authd exited at start"
  sleep 0.02
done
port=$(cat "$work/port") || fail "no port file"
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || fail "healthz"
[ "$(stat -c '%U %a' /var/lib/authd/authd.db)" = "authd 600" ] || fail "database owner/mode"

# A user through the installed CLI (password on stdin), then a login.
printf 'correct horse battery' | runuser -u authd -- /usr/bin/authd user add \
  --config /etc/authd/authd.toml --email ada@example.com >/dev/null || fail "user add"
headers=$(curl -fsS -D - -o "$work/login.json" -H 'Content-Type: application/json' \
  --data '{"email":"ada@example.com","password":"correct horse battery"}' \
  "http://127.0.0.1:$port/login") || fail "login"
grep -qi '^authorization: Bearer ' <<<"$headers" || fail "no token in the login answer"
grep -q '"email":"ada@example.com"' "$work/login.json" || fail "login body"
# /metrics is on the management listener only.
curl -fsS "http://127.0.0.1:$(cat "$work/admin_port")/metrics" | grep -q '^authd_sessions_live 1$' ||
  fail "metrics"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")" = 404 ] ||
  fail "metrics on the public listener"

# Drain and stop, then remove the package.
kill -TERM "$server_pid"
wait "$server_pid" || fail "authd did not stop cleanly"
server_pid=""
grep -q '"event":"stopped"' "$work/authd.log" || fail "no stopped line"
apt-get remove -y -qq authd >/dev/null
[ ! -e /usr/bin/authd ] || fail "binary left after remove"
echo "test-package: OK (installed, served a login on port $port, removed)"
