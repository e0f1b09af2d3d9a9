#!/usr/bin/env bash
# The README's second command (and what CI runs): install what is missing,
# build, and run every test: unit tests, integration tests against the real
# binary (with an SMTP receiver), the browser test of the reset page, the
# README walkthrough, then the Debian package installed and run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
# playwright-core (exact version from package-lock.json) drives Debian's Chromium.
npm ci --no-audit --no-fund --loglevel=error
ctest --test-dir build --output-on-failure --parallel 2
# The .deb: built with CPack, installed with apt, a login served from the
# installed paths, then removed.
bash scripts/test-package.sh
