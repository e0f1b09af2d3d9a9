#include "store/postgres/session_settings.hpp"

#include <algorithm>
#include <string>

namespace authd::postgres {

// The session's server-side limits and settings, set by one statement
// right after connecting: not as the startup `options` parameter, which a
// pooler such as PgBouncer refuses, and which libpq's
// target_session_attrs=read-write would check against (a session started
// with default_transaction_read_only=on reads as a standby's). The lock wait
// gives up a little before the client's deadline, so that a request stuck
// behind a lock gets a clean error on a connection that stays usable.
const char* const kSessionSettings =
    "SELECT set_config('statement_timeout', $1, false),"
    " set_config('lock_timeout', $2, false),"
    " set_config('idle_in_transaction_session_timeout', $1, false),"
    // Result::digest reads BYTEA in the hex format, whatever the server's default.
    " set_config('bytea_output', 'hex', false),"
    // Reads run without BEGIN READ ONLY (postgres_store.cpp); writes begin
    // READ WRITE. Set after libpq has checked target_session_attrs, which
    // would take this session for a standby's.
    " set_config('default_transaction_read_only', 'on', false),"
    // One plan per statement, whatever its values: authd's statements are
    // lookups by key whose best plan does not depend on which key, and a
    // plan made for each value would let a response's time depend on what
    // it looked up
    // (docs/design/performance-choices.md#postgresql-one-plan-per-statement).
    " set_config('plan_cache_mode', 'force_generic_plan', false)";

// The same for one transaction, behind a transaction pooler (whose server
// sessions change from one transaction to the next): SET LOCAL, ended by
// the COMMIT. Reads there run under the role's settings
// (docs/reference/interface/20-postgresql-production.md).
const char* const kTransactionSettings =
    "SELECT set_config('statement_timeout', $1, true),"
    " set_config('lock_timeout', $2, true),"
    " set_config('idle_in_transaction_session_timeout', $1, true),"
    " set_config('bytea_output', 'hex', true),"
    " set_config('plan_cache_mode', 'force_generic_plan', true)";

Params session_limits(std::chrono::milliseconds timeout) {
  auto ms = [](std::chrono::milliseconds d) {
    return std::to_string(std::max<long>(d.count(), 1)) + "ms";
  };
  Params params;
  params.text(ms(timeout)).text(ms(timeout * 9 / 10));
  return params;
}

}  // namespace authd::postgres
