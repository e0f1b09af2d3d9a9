#!/usr/bin/env bash
# Installs what is missing and builds authd and its tests into ./build.
# AUTHD_TESTS=OFF (scripts/start.sh): only what serving needs is installed,
# and the tests are not configured.
set -euo pipefail
cd "$(dirname "$0")/.."
tests=${AUTHD_TESTS:-ON}
if [ "$tests" = OFF ]; then bash scripts/install-deps.sh --serve; else bash scripts/install-deps.sh; fi
# Line tables only (-g1): backtraces keep file:line, and on 2 cores the build
# is about a quarter quicker than with full debug information.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DAUTHD_WERROR=ON -DAUTHD_TESTS="$tests" >/dev/null
cmake --build build "$@"
