#!/usr/bin/env bash
# The README's first command: install what is missing, build, and start authd
# on its embedded default (SQLite file authd.db in the current directory,
# http://127.0.0.1:8080). Extra arguments go to `authd serve`.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bash "$here/scripts/build.sh" --target authd
exec "$here/build/authd" serve "$@"
