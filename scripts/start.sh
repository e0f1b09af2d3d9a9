#!/usr/bin/env bash
# The README's first command: install what building and serving need (not
# the test tools: scripts/test.sh adds those), build authd, and start it on
# its embedded default (SQLite file authd.db in the current directory,
# listening on 127.0.0.1:8080). Extra arguments go to `authd serve`.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
AUTHD_TESTS=OFF bash "$here/scripts/build.sh" --target authd
exec "$here/build/authd" serve "$@"
