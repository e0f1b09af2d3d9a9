#!/usr/bin/env bash
# Installs every Debian 12 package authd needs to build, run and test.
# Idempotent and quick when everything is present; run as root (or with sudo).
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config
  # libraries (see docs/architecture.md for why each)
  libboost-dev nlohmann-json3-dev libsodium-dev libsqlite3-dev
  libcli11-dev libspdlog-dev libfmt-dev
  # tests
  libgtest-dev libgmock-dev googletest sqlite3 curl ca-certificates
  # style tools named in the repo (.clang-format, .clang-tidy)
  clang-format clang-tidy
)

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
