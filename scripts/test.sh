#!/usr/bin/env bash
# The README's second command (and what CI runs): install what is missing,
# build, and run every test: unit tests, integration tests against the real
# binary (with an SMTP receiver), the browser test of the reset page, the
# walkthroughs of docs/guide/; then the integration tests again on
# PostgreSQL 15; the fault campaign's short form on a Patroni cluster
# (interface.md 20.2); then the Debian package installed and run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
# playwright-core (exact version from package-lock.json) drives Debian's Chromium.
npm ci --no-audit --no-fund --loglevel=error
# The statistical timing tests (tests/integration/timing_test.cpp) run
# alone, after the rest: a neighbour starting beside them (Chromium, a
# cluster) moves one side of a comparison and not the other.
# The fault campaign's short form (interface.md 20.2) starts a Patroni
# cluster of its own; it too runs alone, after them.
ctest --test-dir build --output-on-failure --parallel 2 -E '^(integration\.Timing\.|failover\.)'
ctest --test-dir build --output-on-failure -R '^integration\.Timing\.'
ctest --test-dir build --output-on-failure -R '^failover\.'
# The integration tests again, each server on a fresh database of a
# throw-away PostgreSQL 15 cluster (scripts/with-postgres.sh), with the
# multi-instance tests, the PostgreSQL store's own unit tests (every
# unit.Postgres* suite), the store conformance suite
# (tests/unit/store_conformance_test.cpp) and the outbox worker's claims
# (tests/unit/outbox_worker_test.cpp) on PostgreSQL, and the passkeys
# page and the OpenID sign-in and sign-out pages in Chromium (interface.md
# 16.8, 17.5, 17.13),
# and the OpenID provider's interoperability tests (interface.md 17.14),
# sign-in through upstream providers among them (interop.upstream_*, 18).
# The restart tests stop and start their cluster, so they get one of their
# own and run alone; the timing tests join that run, one test at a time, as
# above.
bash scripts/with-postgres.sh ctest --test-dir build --output-on-failure --parallel 2 \
  -R '^(integration\.|unit\.Postgres[A-Za-z]*\.|unit\.(StoreConformance[A-Za-z]*|OutboxWorkerClaims|UpstreamLinking)\..*<authd::OnPostgres>$|unit\.Backends/[A-Za-z]+\..*/postgres$|browser\.(passkeys_page|email_signin_page|oidc_signin_page|oidc_logout_page|console)$|interop\.)' \
  -E '^integration\.(ScaleOutRestart|PostgresStandby|Timing)\.'
bash scripts/with-postgres.sh ctest --test-dir build --output-on-failure \
  -R '^integration\.(ScaleOutRestart|PostgresStandby|Timing)\.'
# The routes that read and write most (login, sessions and logout, /forgot,
# reset, the admin API, the OpenID provider's tokens) and the multi-instance
# and failover tests again, through PgBouncer 1.18 in transaction pooling
# mode with --database-pooler transaction (interface.md 20.3); the restart
# tests alone, as above.
PGBOUNCER_SUITES='Login|Session|Forgot|Reset|AdminApi|AdminUsers|OidcFlow|OidcTokens|OidcRefresh|OidcRefreshScaleOut|ScaleOut|PostgresProduction'
bash scripts/with-pgbouncer.sh ctest --test-dir build --output-on-failure --parallel 2 \
  -R "^integration\.($PGBOUNCER_SUITES)\."
# The first request after a restart answers 503 behind a pooler (interface.md
# 20.3): the pool-of-one test of that is left out.
bash scripts/with-pgbouncer.sh ctest --test-dir build --output-on-failure \
  -R '^integration\.(ScaleOutRestart|PostgresStandby)\.' -E 'FirstRequestAfterARestart'
# The .deb: built with CPack, installed with apt, a login served from the
# installed paths, then removed.
bash scripts/test-package.sh
