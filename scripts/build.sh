#!/usr/bin/env bash
# Installs what is missing and builds authd (and its tests) into ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAUTHD_WERROR=ON >/dev/null
cmake --build build "$@"
