# The one list of authd's sources: everything but main() and the warm argon2
# memory (crypto/warm_argon2_memory.cpp, linked into the executable alone).
# The top-level CMakeLists.txt builds authd_core from it, and fuzz/ builds
# its own library from it, leaving out what no fuzzer reaches. A new source
# is added here, once. AUTHD_ROOT is the repository's root.
set(AUTHD_CORE_SOURCES
  # core/
  ${AUTHD_ROOT}/src/core/client_network.cpp ${AUTHD_ROOT}/src/core/duration.cpp ${AUTHD_ROOT}/src/core/json_text.cpp
  ${AUTHD_ROOT}/src/core/log.cpp ${AUTHD_ROOT}/src/core/log_sink.cpp
  ${AUTHD_ROOT}/src/core/scheduling.cpp ${AUTHD_ROOT}/src/core/time.cpp
  ${AUTHD_ROOT}/src/core/utf8.cpp ${AUTHD_ROOT}/src/core/qr_svg.cpp
  # crypto/
  ${AUTHD_ROOT}/src/crypto/argon2_memory.cpp ${AUTHD_ROOT}/src/crypto/hash_kind.cpp
  ${AUTHD_ROOT}/src/crypto/hashing_pool.cpp ${AUTHD_ROOT}/src/crypto/legacy_hash.cpp
  ${AUTHD_ROOT}/src/crypto/legacy_hash_cost.cpp ${AUTHD_ROOT}/src/crypto/legacy_hash_parse.cpp
  ${AUTHD_ROOT}/src/crypto/legacy_hash_verify.cpp
  ${AUTHD_ROOT}/src/crypto/password_hasher.cpp
  ${AUTHD_ROOT}/src/crypto/random.cpp ${AUTHD_ROOT}/src/crypto/verification_floor.cpp
  ${AUTHD_ROOT}/src/crypto/sealed_secrets.cpp ${AUTHD_ROOT}/src/crypto/totp.cpp
  ${AUTHD_ROOT}/src/crypto/webauthn.cpp ${AUTHD_ROOT}/src/crypto/webauthn_data.cpp
  # auth/
  ${AUTHD_ROOT}/src/auth/accounts.cpp ${AUTHD_ROOT}/src/auth/email.cpp
  ${AUTHD_ROOT}/src/auth/admin_keys.cpp ${AUTHD_ROOT}/src/auth/admin_users.cpp
  ${AUTHD_ROOT}/src/auth/account_events.cpp ${AUTHD_ROOT}/src/auth/erasure.cpp
  ${AUTHD_ROOT}/src/auth/event_log.cpp ${AUTHD_ROOT}/src/auth/events.cpp
  ${AUTHD_ROOT}/src/auth/hash_admission.cpp ${AUTHD_ROOT}/src/auth/hash_kinds_watch.cpp
  ${AUTHD_ROOT}/src/auth/login.cpp
  ${AUTHD_ROOT}/src/auth/mail_request.cpp ${AUTHD_ROOT}/src/auth/notices.cpp
  ${AUTHD_ROOT}/src/auth/password_change.cpp ${AUTHD_ROOT}/src/auth/password_proof.cpp
  ${AUTHD_ROOT}/src/auth/passkeys.cpp ${AUTHD_ROOT}/src/auth/passkey_factor.cpp
  ${AUTHD_ROOT}/src/auth/password_rules.cpp ${AUTHD_ROOT}/src/auth/recovery.cpp
  ${AUTHD_ROOT}/src/auth/signup.cpp ${AUTHD_ROOT}/src/auth/second_factor.cpp
  ${AUTHD_ROOT}/src/auth/recovery_codes.cpp ${AUTHD_ROOT}/src/auth/totp_enrollment.cpp
  ${AUTHD_ROOT}/src/auth/session.cpp ${AUTHD_ROOT}/src/auth/throttle.cpp
  # store/
  ${AUTHD_ROOT}/src/store/migrations.cpp ${AUTHD_ROOT}/src/store/open_store.cpp
  # store/batching/
  ${AUTHD_ROOT}/src/store/batching/transaction_batcher.cpp
  # store/sqlite/
  ${AUTHD_ROOT}/src/store/sqlite/backup.cpp ${AUTHD_ROOT}/src/store/sqlite/checkpointer.cpp
  ${AUTHD_ROOT}/src/store/sqlite/connection.cpp ${AUTHD_ROOT}/src/store/sqlite/outbox.cpp
  ${AUTHD_ROOT}/src/store/sqlite/reset_tokens.cpp ${AUTHD_ROOT}/src/store/sqlite/sessions.cpp
  ${AUTHD_ROOT}/src/store/sqlite/signups.cpp ${AUTHD_ROOT}/src/store/sqlite/admin_keys.cpp
  ${AUTHD_ROOT}/src/store/sqlite/second_factors.cpp ${AUTHD_ROOT}/src/store/sqlite/passkeys.cpp
  ${AUTHD_ROOT}/src/store/sqlite/events.cpp ${AUTHD_ROOT}/src/store/sqlite/webhooks.cpp
  ${AUTHD_ROOT}/src/store/sqlite/sqlite_store.cpp
  ${AUTHD_ROOT}/src/store/sqlite/throttle_events.cpp ${AUTHD_ROOT}/src/store/sqlite/users.cpp
  # store/postgres/
  ${AUTHD_ROOT}/src/store/postgres/connection.cpp ${AUTHD_ROOT}/src/store/postgres/params.cpp
  ${AUTHD_ROOT}/src/store/postgres/outbox.cpp ${AUTHD_ROOT}/src/store/postgres/event_batch.cpp
  ${AUTHD_ROOT}/src/store/postgres/postgres_store.cpp ${AUTHD_ROOT}/src/store/postgres/read_pipeline.cpp
  ${AUTHD_ROOT}/src/store/postgres/reset_tokens.cpp ${AUTHD_ROOT}/src/store/postgres/sessions.cpp
  ${AUTHD_ROOT}/src/store/postgres/shared_sessions.cpp ${AUTHD_ROOT}/src/store/postgres/shared_throttle.cpp
  ${AUTHD_ROOT}/src/store/postgres/mail_batch.cpp
  ${AUTHD_ROOT}/src/store/postgres/signups.cpp ${AUTHD_ROOT}/src/store/postgres/admin_keys.cpp
  ${AUTHD_ROOT}/src/store/postgres/second_factors.cpp ${AUTHD_ROOT}/src/store/postgres/passkeys.cpp
  ${AUTHD_ROOT}/src/store/postgres/events.cpp ${AUTHD_ROOT}/src/store/postgres/webhooks.cpp
  ${AUTHD_ROOT}/src/store/postgres/throttle_events.cpp ${AUTHD_ROOT}/src/store/postgres/users.cpp
  # mail/
  ${AUTHD_ROOT}/src/mail/log_transport.cpp ${AUTHD_ROOT}/src/mail/message.cpp
  ${AUTHD_ROOT}/src/mail/outbox_worker.cpp ${AUTHD_ROOT}/src/mail/smtp_transport.cpp
  ${AUTHD_ROOT}/src/mail/templates.cpp
  # api/
  ${AUTHD_ROOT}/src/api/admin_access.cpp ${AUTHD_ROOT}/src/api/admin_sessions.cpp
  ${AUTHD_ROOT}/src/api/admin_user_body.cpp ${AUTHD_ROOT}/src/api/admin_users.cpp
  ${AUTHD_ROOT}/src/api/query.cpp ${AUTHD_ROOT}/src/api/session_json.cpp
  ${AUTHD_ROOT}/src/api/mfa.cpp ${AUTHD_ROOT}/src/api/webauthn.cpp
  ${AUTHD_ROOT}/src/api/second_factor_body.cpp
  ${AUTHD_ROOT}/src/api/bearer.cpp ${AUTHD_ROOT}/src/api/credentials.cpp
  ${AUTHD_ROOT}/src/api/admin_events.cpp ${AUTHD_ROOT}/src/api/errors.cpp
  ${AUTHD_ROOT}/src/api/event_source.cpp
  ${AUTHD_ROOT}/src/api/forgot.cpp ${AUTHD_ROOT}/src/api/hashing_busy.cpp
  ${AUTHD_ROOT}/src/api/healthz.cpp ${AUTHD_ROOT}/src/api/json_body.cpp
  ${AUTHD_ROOT}/src/api/login.cpp ${AUTHD_ROOT}/src/api/metrics.cpp ${AUTHD_ROOT}/src/api/pages.cpp
  ${AUTHD_ROOT}/src/api/password.cpp ${AUTHD_ROOT}/src/api/reset.cpp
  ${AUTHD_ROOT}/src/api/routes.cpp ${AUTHD_ROOT}/src/api/session_routes.cpp
  ${AUTHD_ROOT}/src/api/signup.cpp ${AUTHD_ROOT}/src/api/user_json.cpp
  ${AUTHD_ROOT}/src/api/verify.cpp
  # http/
  ${AUTHD_ROOT}/src/http/client_address.cpp ${AUTHD_ROOT}/src/http/connection_registry.cpp
  ${AUTHD_ROOT}/src/http/cors.cpp ${AUTHD_ROOT}/src/http/exchange.cpp
  ${AUTHD_ROOT}/src/http/request_checks.cpp ${AUTHD_ROOT}/src/http/request_id.cpp
  ${AUTHD_ROOT}/src/http/response_wire.cpp ${AUTHD_ROOT}/src/http/server.cpp
  ${AUTHD_ROOT}/src/http/proxy_protocol.cpp ${AUTHD_ROOT}/src/http/tls.cpp
  # metrics/
  ${AUTHD_ROOT}/src/metrics/metrics.cpp
  # config/
  ${AUTHD_ROOT}/src/config/config.cpp ${AUTHD_ROOT}/src/config/config_checks.cpp
  ${AUTHD_ROOT}/src/config/config_file.cpp ${AUTHD_ROOT}/src/config/network_options.cpp
  ${AUTHD_ROOT}/src/config/service_options.cpp
  # cli/
  ${AUTHD_ROOT}/src/cli/backup.cpp ${AUTHD_ROOT}/src/cli/password_input.cpp
  ${AUTHD_ROOT}/src/cli/metric_sources.cpp
  ${AUTHD_ROOT}/src/cli/serve.cpp ${AUTHD_ROOT}/src/cli/secret_keys.cpp ${AUTHD_ROOT}/src/cli/mfa_commands.cpp ${AUTHD_ROOT}/src/cli/user_commands.cpp
  ${AUTHD_ROOT}/src/cli/event_commands.cpp ${AUTHD_ROOT}/src/cli/housekeeping.cpp
  ${AUTHD_ROOT}/src/cli/admin_key_commands.cpp ${AUTHD_ROOT}/src/cli/user_import.cpp
  ${AUTHD_ROOT}/src/cli/bounded_lines.cpp
  ${AUTHD_ROOT}/src/cli/webhook_commands.cpp
  ${AUTHD_ROOT}/src/cli/command_registry.cpp ${AUTHD_ROOT}/src/cli/serve_commands.cpp ${AUTHD_ROOT}/src/cli/serve_parts.cpp
  # webhooks/
  ${AUTHD_ROOT}/src/webhooks/http_post.cpp ${AUTHD_ROOT}/src/webhooks/signature.cpp
  ${AUTHD_ROOT}/src/webhooks/webhook_worker.cpp
)

# Not in the fuzzers' library: the CLI, its configuration, mail and webhook delivery
# (nothing a fuzzer sends reaches them).
set(AUTHD_UNFUZZED_SOURCES_REGEX "/src/(cli|config|mail|webhooks)/")
