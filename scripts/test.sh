#!/usr/bin/env bash
# The README's second command (and what CI runs): install what is missing,
# build, and run every test: unit tests, integration tests against the real
# binary, and the README walkthrough.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build --output-on-failure --parallel 2
