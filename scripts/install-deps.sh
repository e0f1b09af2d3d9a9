#!/usr/bin/env bash
# Installs the Debian 12 packages authd needs: with --serve, only what
# building and serving take (scripts/start.sh); without, everything the
# tests need too. Idempotent and quick when everything is present; run as
# root (or with sudo).
set -euo pipefail

serve_only=0
[ "${1:-}" = "--serve" ] && serve_only=1

# What building and serving authd need (scripts/start.sh): a compiler and
# the libraries it links.
serve_packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config
  # a cache of compiled objects, shared by clones (cmake/ccache.cmake)
  ccache
  # libraries (see docs/design/architecture.md#the-folders-of-src for why each)
  libboost-dev nlohmann-json3-dev libsodium-dev libsqlite3-dev
  # PostgreSQL's reads as fibers sharing one connection's round trips
  # (store/postgres/read_pipeline.hpp)
  libboost-context-dev
  libcli11-dev libspdlog-dev libfmt-dev libcurl4-openssl-dev libtomlplusplus-dev libpq-dev
  # imported legacy password hashes (interface.md 10.5), each verified by a
  # maintained library: libargon2 for the argon2 variants libsodium cannot
  # verify (argon2d, several lanes, version 16), libxcrypt for bcrypt, $7$
  # scrypt and SHA-crypt, OpenSSL 3 for PBKDF2 and the PHC scrypt string
  libargon2-dev libcrypt-dev libssl-dev
  # mail templates (src/mail/templates.hpp): header-only Mustache
  libkainjow-mustache-dev
  # the second factor (interface.md 12): TOTP by liboath, QR codes by libqrencode
  liboath-dev libqrencode-dev
  # passkeys (interface.md 16): libfido2 verifies COSE keys and assertion
  # signatures, libcbor decodes the attestation object
  libfido2-dev libcbor-dev
  # the OpenID provider's signing keys and ID tokens (interface.md 17.12):
  # libcjose (the JOSE library mod_auth_openidc builds on) makes the JWKs
  # with OpenSSL and signs the compact JWS; its pkg-config file requires
  # jansson's, which Debian's libcjose-dev does not pull in
  libcjose-dev libjansson-dev
  # the CA certificates that libcurl checks an SMTP relay's TLS against
  ca-certificates
)

# What the tests, the sanitized build, the fuzzers and the lint add
# (scripts/test.sh and the scripts CI runs).
test_packages=(
  # tests: the SMTP receiver, the browser, certificates for STARTTLS, the
  # Prometheus text-format parser
  libgtest-dev libgmock-dev googletest sqlite3 curl
  python3 python3-aiosmtpd chromium openssl python3-prometheus-client
  # a real reverse proxy in front of authd (tests/integration/proxy_test.cpp),
  # and the gateway in front of another service (gateway_test.cpp)
  nginx
  # a real load balancer sending the PROXY protocol (proxy_protocol_test.cpp),
  # and routing to the Patroni primary (scripts/with-patroni.sh HAPROXY=1)
  haproxy
  # a relying party someone else wrote in front of the OpenID provider
  # (interface.md 17.14, tests/interop/mod_auth_openidc.test.mjs)
  apache2 libapache2-mod-auth-openidc
  # the PostgreSQL backend's tests: a throw-away PostgreSQL 15 cluster
  # (scripts/with-postgres.sh) and psql to look at what is stored
  postgresql-15 postgresql-client-15
  # PgBouncer in transaction pooling mode in front of that cluster
  # (scripts/with-pgbouncer.sh, interface.md 20.3)
  pgbouncer
  # the failover tests (interface.md 20.2, scripts/with-patroni.sh): three
  # PostgreSQL nodes under Patroni, with etcd (and etcdctl) as its store;
  # python3-etcd is the one of patroni's alternative store clients we use
  patroni python3-etcd etcd-server etcd-client
  # an independent argon2id implementation for the PHC interoperability test
  python3-argon2
  # independent makers and checkers of the legacy hashes authd imports
  # (tests/support/make_legacy_hashes.py, tests/unit/legacy_hash_test.cpp):
  # passlib, the bcrypt module, and mkpasswd (Debian's whois package); the
  # bcrypt module also makes the hashes of docs/guide/migrating-users.md
  # (tests/operations_walkthrough.sh)
  python3-passlib python3-bcrypt whois
  # an independent JOSE implementation that verifies the provider's ID
  # token signatures against its JWKS (interface.md 17.12)
  python3-jwcrypto
  # an independent TOTP implementation (oathtool) and a QR decoder (zbarimg,
  # on the SVG rasterised by rsvg-convert) for the second factor's tests
  oathtool zbar-tools librsvg2-bin
  # the Debian package (dpkg-shlibdeps) and running it as its own user (setpriv)
  dpkg-dev util-linux
  # fuzzing (scripts/fuzz.sh): clang 14, libFuzzer, and libc++, because clang
  # 14 cannot compile coroutines against GCC 12's libstdc++
  clang-14 libclang-rt-14-dev libc++-14-dev libc++abi-14-dev
  # style tools named in the repo (.clang-format, .clang-tidy)
  clang-format clang-tidy
)

packages=("${serve_packages[@]}")
if [ $serve_only -eq 0 ]; then
  packages+=("${test_packages[@]}")
  # Node.js runs the browser test (playwright-core from npm). Machines that
  # already have a node (e.g. from NodeSource) keep it; Debian's otherwise.
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    packages+=(nodejs npm)
  fi
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
